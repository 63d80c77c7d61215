package acp

// Form-mode elicitations and elicitation URLs: a form asks for no secret
// and shows no link, a URL carries no credential, and the values a client
// accepts a form with fit what the form asked for. Whether a field is a
// secret is a judgement made from its name, title and description, so
// those findings are warnings that give their reason.

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// The rows they check.
const (
	reqFormNoSecrets   = "acp.elicitation.form-no-secrets"
	reqSensitiveURL    = "acp.elicitation.sensitive-url-mode"
	reqNoFormFallback  = "acp.elicitation.no-form-fallback"
	reqFormNoURLs      = "acp.elicitation.form-no-urls"
	reqURLNoSecrets    = "acp.elicitation.url-no-secrets"
	reqContentConforms = "acp.elicitation.content-conforms"
	reqClientValidate  = "acp.elicitation.client-validate"
)

// formAsked is what a form-mode elicitation asked for.
type formAsked struct {
	line   int
	schema map[string]any
}

// secretWords name what a form must not ask for: credentials that grant
// access or authorise payments. Each is matched against a field's name,
// title and description with case, spaces, "-" and "_" removed.
var secretWords = []struct{ word, what string }{
	{"password", "a password"}, {"passphrase", "a passphrase"}, {"passcode", "a passcode"},
	{"apikey", "an API key"}, {"accesskey", "an access key"}, {"secretkey", "a secret key"},
	{"privatekey", "a private key"}, {"clientsecret", "a client secret"}, {"secret", "a secret"},
	{"accesstoken", "an access token"}, {"refreshtoken", "a refresh token"}, {"authtoken", "an auth token"},
	{"bearertoken", "a bearer token"}, {"personalaccesstoken", "a personal access token"}, {"token", "a token"},
	{"recoverycode", "a recovery code"}, {"backupcode", "a backup code"}, {"otp", "a one-time code"},
	{"creditcard", "a payment card"}, {"cardnumber", "a payment card"}, {"cvv", "a card security code"},
	{"cvc", "a card security code"}, {"iban", "a bank account"}, {"credential", "a credential"},
}

// notSecret are words that contain a secret word without being one
// ("max tokens", "token budget" name a count, not a credential).
var notSecret = []string{"maxtokens", "tokenlimit", "tokenbudget", "tokencount", "tokens"}

// secretQueryKeys are query parameters that carry credentials or
// pre-authenticated access, compared with case, "-" and "_" removed.
var secretQueryKeys = []string{
	"token", "accesstoken", "refreshtoken", "idtoken", "authtoken", "apikey", "key", "password",
	"passwd", "pwd", "secret", "clientsecret", "session", "sessionid", "sessionkey", "auth",
	"authorization", "credential", "credentials", "sig", "signature", "xamzsignature", "xamzcredential",
	"xamzsecuritytoken", "code",
}

// squash lowercases s and drops spaces, "-", "_" and ".".
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '.', '\t':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// secretIn names the secret a text asks for, "" if none.
func secretIn(texts ...string) string {
	for _, t := range texts {
		w := squash(t)
		for _, n := range notSecret {
			w = strings.ReplaceAll(w, n, "")
		}
		for _, sw := range secretWords {
			if sw.word == "otp" || sw.word == "cvv" || sw.word == "cvc" || sw.word == "iban" {
				// Short words: only as a whole name or word.
				if !hasWord(t, sw.word) {
					continue
				}
			} else if !strings.Contains(w, sw.word) {
				continue
			}
			return sw.what
		}
	}
	return ""
}

// hasWord reports whether t has word as a whole word, case folded.
func hasWord(t, word string) bool {
	for _, f := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if f == word {
			return true
		}
	}
	return false
}

// form checks a form-mode elicitation (effect Form): no field asks for a
// secret, and no text holds a link; it keeps the form for the answer.
func (s *state) form(m *protocol.Message, req *request, f *registry.ACPForm) {
	schema, _ := m.At(f.Schema).(map[string]any)
	req.form = &formAsked{line: m.Line, schema: schema}
	props, _ := schema["properties"].(map[string]any)
	urlMode := protocol.Truthy(protocol.At(s.clientInit, f.URLCapability))
	row := reqNoFormFallback
	if urlMode {
		row = reqSensitiveURL
	}
	s.exercise(reqFormNoSecrets)
	s.exercise(row)
	s.exercise(reqFormNoURLs)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	msg, _ := m.String(f.Message)
	if link := linkIn(msg); link != "" {
		m.Breach(reqFormNoURLs, finding.Warning, RuleElicitation, f.Message, "the form's message holds a link (%s): a form shows no URL for the user to open; a page the user visits is a URL-mode elicitation, which the client shows as such", protocol.Quote(clip(link)))
	}
	for _, k := range names {
		p, _ := props[k].(map[string]any)
		title, _ := p["title"].(string)
		desc, _ := p["description"].(string)
		at := jsonpointer.Join(f.Schema+"/properties", k)
		if what := secretIn(k, title, desc); what != "" {
			how := "URL mode is not advertised, so the agent uses another safe flow or fails the operation; it never falls back to a form"
			if urlMode {
				how = "the agent asks for it through a URL-mode elicitation (a page of its own), which the client advertised"
			}
			m.Breach(row, finding.Warning, RuleElicitation, at, "form field %s seems to ask for %s (judged from its name, title and description): a form never asks for secrets that grant access or authorise payments; %s", protocol.Quote(clip(k)), what, how)
		}
		for _, t := range append([]string{title, desc}, enumTitles(p)...) {
			if link := linkIn(t); link != "" {
				m.Breach(reqFormNoURLs, finding.Warning, RuleElicitation, at, "form field %s holds a link (%s): a form shows no URL for the user to open; a page the user visits is a URL-mode elicitation", protocol.Quote(clip(k)), protocol.Quote(clip(link)))
				break
			}
		}
	}
}

// enumTitles lists the titles of a field's choices (oneOf or anyOf of
// const and title, or of its items).
func enumTitles(p map[string]any) []string {
	var out []string
	for _, src := range []map[string]any{p, asMap(p["items"])} {
		for _, k := range []string{"oneOf", "anyOf"} {
			list, _ := src[k].([]any)
			for _, o := range list {
				if t, ok := asMap(o)["title"].(string); ok {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// linkIn returns the first http or https link in t, "" if none.
func linkIn(t string) string {
	lower := strings.ToLower(t)
	for _, scheme := range []string{"https://", "http://"} {
		if i := strings.Index(lower, scheme); i >= 0 {
			end := strings.IndexAny(t[i:], " \t\n\"'<>)")
			if end < 0 {
				return t[i:]
			}
			return t[i : i+end]
		}
	}
	return ""
}

// urlSecrets checks an elicitation URL: no credentials in it, neither a
// user's password nor a query parameter that carries access.
func (s *state) urlSecrets(m *protocol.Message, ptr, raw string) {
	s.exercise(reqURLNoSecrets)
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	if _, has := u.User.Password(); has {
		m.Breach(reqURLNoSecrets, finding.Warning, RuleElicitation, ptr, "the elicitation's URL carries a password in its user part: an elicitation URL carries no credentials, personal data or pre-authenticated access")
		return
	}
	keys := make([]string, 0, len(u.Query()))
	for k := range u.Query() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if slices.Contains(secretQueryKeys, squash(k)) {
			m.Breach(reqURLNoSecrets, finding.Warning, RuleElicitation, ptr, "the elicitation's URL has query parameter %s, which carries a credential or pre-authenticated access (judged from its name): an elicitation URL carries no credentials, personal data or pre-authenticated access; the page authenticates the user itself", protocol.Quote(clip(k)))
			return
		}
	}
}

// formAnswered checks the values a client accepted a form with: they fit
// the form's schema (required members present, types, choices, bounds).
func (s *state) formAnswered(m *protocol.Message, req *request, f *registry.ACPForm) {
	if !m.StringIs(f.Action, f.Accept) || req.form.schema == nil {
		return
	}
	s.exercise(reqContentConforms)
	content, ok := m.At(f.Content).(map[string]any)
	if !ok {
		return // the schema reports a missing or mistyped content
	}
	if why, at := formMisfit(req.form.schema, content); why != "" {
		m.Breach(reqContentConforms, finding.Warning, RuleElicitation, f.Content+at, "%s: the values a client accepts a form with fit the schema the form asked with (line %d), checked before they are sent", why, req.form.line)
	}
}

// formMisfit names the first way content does not fit a form's schema, and
// where ("" if it fits).
func formMisfit(schema, content map[string]any) (string, string) {
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	for _, r := range req {
		if k, ok := r.(string); ok {
			if _, has := content[k]; !has {
				return fmt.Sprintf("required field %s is missing", protocol.Quote(clip(k))), ""
			}
		}
	}
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := props[k].(map[string]any)
		if !ok {
			continue
		}
		if why := valueMisfit(p, content[k]); why != "" {
			return fmt.Sprintf("field %s %s", protocol.Quote(clip(k)), why), jsonpointer.Join("", k)
		}
	}
	return "", ""
}

// valueMisfit says how v breaks the field schema p, "" if it does not.
func valueMisfit(p map[string]any, v any) string {
	typ, _ := p["type"].(string)
	switch typ {
	case "string":
		str, ok := v.(string)
		if !ok {
			return "is " + protocol.Describe(v) + ", and the form asked for a string"
		}
		if n, ok := protocol.IntValue(p["minLength"]); ok && int64(utf8.RuneCountInString(str)) < n {
			return fmt.Sprintf("is shorter than its minLength %d", n)
		}
		if n, ok := protocol.IntValue(p["maxLength"]); ok && int64(utf8.RuneCountInString(str)) > n {
			return fmt.Sprintf("is longer than its maxLength %d", n)
		}
	case "number", "integer":
		f, ok := number(v)
		if !ok {
			article := "a "
			if typ == "integer" {
				article = "an "
			}
			return "is " + protocol.Describe(v) + ", and the form asked for " + article + typ
		}
		if typ == "integer" && f != math.Trunc(f) {
			return "is not a whole number, and the form asked for an integer"
		}
		if lo, ok := number(p["minimum"]); ok && f < lo {
			return fmt.Sprintf("is below its minimum %v", p["minimum"])
		}
		if hi, ok := number(p["maximum"]); ok && f > hi {
			return fmt.Sprintf("is above its maximum %v", p["maximum"])
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return "is " + protocol.Describe(v) + ", and the form asked for a boolean"
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return "is " + protocol.Describe(v) + ", and the form asked for an array"
		}
		items, _ := p["items"].(map[string]any)
		for _, el := range list {
			if why := choiceMisfit(items, el); why != "" {
				return why
			}
		}
		return ""
	}
	return choiceMisfit(p, v)
}

// choiceMisfit says how v is none of the choices of p (enum, or oneOf and
// anyOf of consts), "" if it is one or p offers none.
func choiceMisfit(p map[string]any, v any) string {
	var choices []any
	if list, ok := p["enum"].([]any); ok {
		choices = list
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		list, _ := p[k].([]any)
		for _, o := range list {
			if c, ok := asMap(o)["const"]; ok {
				choices = append(choices, c)
			}
		}
	}
	if len(choices) == 0 {
		return ""
	}
	switch v.(type) {
	case map[string]any, []any:
		// No choice of a form is an object or an array.
	default:
		for _, c := range choices {
			switch c.(type) {
			case map[string]any, []any:
			default:
				if sameScalar(c, v) {
					return ""
				}
			}
		}
	}
	var names []string
	for _, c := range choices {
		names = append(names, protocol.Display(c))
	}
	return fmt.Sprintf("is %s, which is none of its choices (%s)", protocol.Display(v), strings.Join(names, ", "))
}

// number reads a JSON number.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// sameScalar reports whether two scalars are the same JSON value (numbers
// by value, so that 1 and 1.0 are one).
func sameScalar(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return a == b
}
