package model

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// goDocs makes every generated type's doc comment start with its name, as
// Go doc comments do ("Ping is a liveness probe.", "Cancel asks the
// runtime to …"), keeping the schema's words after it.
func goDocs(p *Package) {
	for _, t := range p.Types {
		if t.External == nil {
			t.Doc = GoDoc(t.Name, t.Doc)
		}
	}
}

// thirdPerson are verbs a description may start with ("Asks the agent
// to …"): the type's name becomes their subject.
var thirdPerson = map[string]bool{
	"Adds": true, "Announces": true, "Appends": true, "Brings": true, "Forks": true, "Loads": true,
	"Moves": true, "Renames": true, "Restores": true, "Answers": true, "Asks": true, "Carries": true, "Changes": true,
	"Closes": true, "Configures": true, "Confirms": true, "Contains": true, "Continues": true, "Controls": true,
	"Creates": true, "Defines": true, "Deletes": true, "Describes": true, "Ends": true, "Extends": true,
	"Frees": true, "Gets": true, "Gives": true, "Grants": true, "Holds": true, "Identifies": true,
	"Indicates": true, "Kills": true, "Lists": true, "Marks": true, "Names": true, "Notifies": true,
	"Opens": true, "Reads": true, "Refuses": true, "Rejects": true, "Releases": true, "Removes": true,
	"Reopens": true, "Replaces": true, "Reports": true, "Represents": true, "Requests": true, "Resumes": true,
	"Returns": true, "Revokes": true, "Runs": true, "Says": true, "Selects": true, "Sends": true,
	"Sets": true, "Specifies": true, "Starts": true, "Stops": true, "Switches": true, "Tells": true,
	"Ties": true, "Updates": true, "Waits": true, "Writes": true,
}

// copulaFirst are first words that read on after "Name is": articles,
// determiners, question words and participles.
var copulaFirst = map[string]bool{
	"A": true, "An": true, "The": true, "One": true, "Any": true, "Each": true, "Every": true,
	"Some": true, "All": true, "No": true, "Either": true, "Neither": true, "Both": true,
	"How": true, "What": true, "Why": true, "Where": true, "When": true, "Which": true, "Who": true, "Whether": true,
	"Sent": true, "Given": true, "Kept": true, "Held": true, "Made": true, "Written": true, "Used": true,
}

// GoDoc rewrites a type's description so that it starts with the type's
// name: a description that already does is kept; one that starts with a
// verb gets the name as its subject ("Cancel asks …"); an article, a
// question word or a participle follows "Name is"; a noun phrase gets an
// article ("PingPayload is the payload of `ping`.", "Ping is a generic
// liveness probe.") and a plural one "holds" ("X holds the details of …").
// A direction such as "Client to runtime: …" reads "X goes from client to
// runtime: …". An empty description says that the schema has none.
func GoDoc(name, doc string) string {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return name + " has no description in its schema."
	}
	first, rest, _ := strings.Cut(doc, " ")
	word := strings.TrimRight(first, ".,:;!?")
	switch {
	case word == name || strings.HasPrefix(first, name+"'") || strings.HasPrefix(first, name+"`"):
		return doc
	case thirdPerson[word]:
		return name + " " + lower(doc)
	case clause(doc):
		return name + " means " + lower(doc)
	case word == "The" && pluralHead(doc):
		return name + " holds " + lower(doc)
	case (word == "A" || word == "An") && pluralHead(doc):
		// "An optional hints that …": the article does not fit the noun.
		return name + " holds the " + lower(rest)
	case copulaFirst[word] || passive(word, rest):
		return name + " is " + lower(doc)
	case direction(word, rest):
		return name + " goes from " + lower(doc)
	}
	r, _ := utf8.DecodeRuneInString(doc)
	if !unicode.IsLetter(r) || strings.HasSuffix(word, "'s") || strings.HasSuffix(second(rest), "'s") {
		// `code`, a number, a quotation: no article fits every case.
		return name + " is " + doc
	}
	phrase := doc
	if !acronym(word) {
		phrase = lower(doc)
	}
	switch second(rest) {
	case "a", "an", "the", "one", "its", "every", "each", "all", "everything", "nothing", "something":
		if strings.HasSuffix(word, "s") && !strings.HasSuffix(word, "ss") {
			// A verb: "Archives a session".
			return name + " " + phrase
		}
		// An imperative: "Upload an artifact".
		return name + " asks to " + phrase
	}
	if pluralHead(doc) {
		return name + " holds the " + phrase
	}
	if definite(doc) || strings.HasSuffix(word, "est") {
		return name + " is the " + phrase
	}
	if startsWithVowelSound(word) {
		return name + " is an " + phrase
	}
	return name + " is a " + phrase
}

// second is the first word of rest.
func second(rest string) string {
	w, _, _ := strings.Cut(rest, " ")
	return w
}

// finite are verb forms that, after a description's opening noun phrase,
// make it a clause ("The stream ended", "A lease was withdrawn").
var finite = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "has": true, "have": true, "had": true,
	"exists": true, "runs": true, "belongs": true, "ends": true, "starts": true, "says": true,
	"needs": true, "goes": true, "comes": true, "fails": true, "applies": true, "takes": true,
	"waits": true, "hit": true, "ran": true, "began": true, "left": true, "lost": true, "broke": true,
	"went": true, "came": true, "cannot": true, "did": true, "does": true, "got": true, "took": true,
	"wants": true, "asks": true, "keeps": true, "shows": true, "sends": true, "uses": true, "knows": true,
	"makes": true, "lets": true, "sees": true, "tells": true, "gives": true,
}

// phraseEnd are words that end a description's opening noun phrase.
var phraseEnd = map[string]bool{
	"of": true, "to": true, "for": true, "with": true, "in": true, "on": true, "by": true, "from": true,
	"that": true, "which": true, "who": true, "whose": true, "where": true, "when": true, "and": true,
	"or": true, "the": true, "a": true, "an": true, "its": true, "their": true, "only": true, "as": true,
	"at": true, "so": true, "than": true, "but": true, "if": true, "this": true, "it": true, "one": true,
	"about": true, "how": true, "what": true, "why": true, "whether": true, "every": true, "each": true,
	"any": true, "all": true, "some": true, "no": true,
}

// pluralHead reports whether the noun phrase a description opens with
// ends in a plural noun ("Content block types the agent accepts").
func pluralHead(doc string) bool {
	ws := strings.Fields(doc)
	if len(ws) > 0 && (ws[0] == "A" || ws[0] == "An" || ws[0] == "The") {
		ws = ws[1:]
	}
	head := ""
	for i, w := range ws {
		bare := strings.TrimRight(w, ".,:;!?)")
		if i > 0 && (phraseEnd[bare] || finite[bare] || strings.HasSuffix(bare, "ed") || strings.HasSuffix(bare, "ing")) {
			break
		}
		head = bare
		if bare != w || strings.HasPrefix(w, "(") || strings.Contains(w, "`") {
			break
		}
	}
	return plural(head)
}

// passive reports whether a description opens with a participle used as a
// verb ("Sent by the client when …") rather than as an adjective
// ("Attested identity of the client").
func passive(word, rest string) bool {
	if !strings.HasSuffix(word, "ed") || len(word) <= 4 {
		return false
	}
	switch strings.TrimRight(second(rest), ".,:;") {
	case "by", "when", "to", "as", "in", "from", "on", "after", "before", "only", "with", "for", "at",
		"once", "while", "if", "through", "into", "over", "":
		return true
	}
	return false
}

// clause reports whether a description that starts with an article is a
// sentence of its own ("The user accepted the elicitation.") rather than
// a noun phrase ("The identifier of a session."): a finite verb follows
// the opening noun before any punctuation or relative pronoun.
func clause(doc string) bool {
	ws := strings.Fields(doc)
	if len(ws) < 3 || !map[string]bool{"A": true, "An": true, "The": true}[ws[0]] {
		return false
	}
	sawOf := false
	for i := 1; i < len(ws) && i < 8; i++ {
		w := strings.TrimRight(ws[i], ".,:;!?")
		switch w {
		case "that", "which", "who", "whose", "whom", "where", "when", "to", "for", "with", "in", "on", "by",
			"from", "and", "or", "it", "this":
			return false
		case "of":
			sawOf = true
		case "the", "a", "an", "its", "their":
			// "The execution of the job began" goes on; "A credential the
			// runtime minted" is a noun with a relative clause.
			if ws[i-1] != "of" {
				return false
			}
		}
		if i >= 2 && finite[w] {
			return true
		}
		if i >= 2 && !sawOf && strings.HasSuffix(w, "ed") && len(w) > 3 {
			// "The stream ended with an error" and "A file moved or
			// renamed" are clauses; "A server reached over HTTP" is a noun
			// and a participle.
			next := ""
			if i+1 < len(ws) && ws[0] != "The" {
				next = strings.TrimRight(ws[i+1], ".,:;!?")
			}
			switch next {
			case "by", "over", "through", "outside", "inside", "as", "with", "from", "to", "into", "for", "in", "on", "at", "after", "before", "under", "via":
				return false
			}
			return true
		}
		if w != ws[i] || strings.HasPrefix(ws[i], "(") {
			return false
		}
	}
	return false
}

// lower lowers the first letter of s unless its first word is an acronym
// (MCP, W3C) or a name with capitals inside (JobSubmit).
func lower(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if acronym(strings.TrimRight(first, ".,:;!?")) {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// acronym reports whether a word has a capital after its first letter.
func acronym(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// direction reports whether a description starts "Client to runtime:".
func direction(word, rest string) bool {
	second, after, _ := strings.Cut(rest, " ")
	third, _, _ := strings.Cut(after, " ")
	return second == "to" && strings.HasSuffix(third, ":") && word != "" && !strings.HasSuffix(word, ":")
}

// plural reports whether a noun looks plural: Details, Capabilities, but
// not Progress, Status or Analysis.
func plural(w string) bool {
	if acronym(w) || len(w) < 4 || !strings.HasSuffix(w, "s") {
		return false
	}
	for _, end := range []string{"ss", "us", "is", "ics"} {
		if strings.HasSuffix(w, end) {
			return false
		}
	}
	return true
}

// definite reports whether a noun phrase names one thing of something
// ("Payload of `ping`", "Answer to a request"): it takes "the".
func definite(doc string) bool {
	ws := strings.Fields(doc)
	for i := 1; i < len(ws) && i < 4; i++ {
		switch ws[i] {
		case "of", "to", "for":
			return true
		}
		if strings.ContainsAny(ws[i-1], ".,:;") {
			return false
		}
	}
	return false
}

// startsWithVowelSound is a rough test for "an": a vowel letter, or an
// acronym whose first letter is spoken with one (MCP, "an em").
func startsWithVowelSound(w string) bool {
	if w == "" {
		return false
	}
	if acronym(w) && strings.ToUpper(w) == w {
		return strings.ContainsRune("AEFHILMNORSX", rune(w[0]))
	}
	return strings.ContainsRune("AEIOUaeiou", rune(w[0])) && !strings.HasPrefix(strings.ToLower(w), "uni") && !strings.HasPrefix(strings.ToLower(w), "use")
}
