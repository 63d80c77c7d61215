package main

// The parts of a SARIF log the tests read, as --format sarif writes them.

type sarifText struct {
	Text string `json:"text"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region,omitempty"`
	} `json:"physicalLocation"`
	LogicalLocations []struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	} `json:"logicalLocations,omitempty"`
}

type sarifRequirement struct {
	ID       string `json:"id"`
	Level    string `json:"level"`
	Citation string `json:"citation"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	ShortDescription sarifText `json:"shortDescription"`
	FullDescription  sarifText `json:"fullDescription"`
	Properties       *struct {
		Requirements []sarifRequirement `json:"requirements"`
	} `json:"properties,omitempty"`
}
