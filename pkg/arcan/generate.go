package arcan

//go:generate go run ../../cmd/protogen -pkg arcan -float-format serde -integer-format serde -o arcan_gen.go ../../schema/arcan/v1
