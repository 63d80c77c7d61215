package model_test

import "testing"

// TestURLKeysNamed: a $defs key that is a URL (AsyncAPI keys its
// definitions by their $id) names its type by the URL's last segment,
// without the file's extension, not by every character of the URL; when
// two ask for one name, the other takes the segments before it that are
// not versions, then its versions.
func TestURLKeysNamed(t *testing.T) {
	p := build(t, `{"$defs":{
		"http://asyncapi.com/definitions/2.6.0/info.json":{"type":"object","properties":{"title":{"type":"string"}}},
		"http://asyncapi.com/definitions/2.7.0/info.json":{"type":"object","properties":{"title":{"type":"string"},"v":{"type":"integer"}}},
		"http://asyncapi.com/bindings/http/0.1.0/server.json":{"type":"object","properties":{"h":{"type":"string"}}},
		"http://asyncapi.com/bindings/kafka/0.4.0/server.json":{"type":"object","properties":{"k":{"type":"string"}}},
		"http://asyncapi.com/definitions/3.0.0/Tag.json":{"type":"object","properties":{"a":{"type":"string"}}},
		"http://asyncapi.com/definitions/3.1.0/Tag.json":{"type":"object","properties":{"b":{"type":"string"}}},
		"http://asyncapi.com/definitions/3.2.0/Tag.json":{"type":"object","properties":{"c":{"type":"string"}}},
		"http://json-schema.org/draft-07/schema#":{"type":"object","properties":{"id":{"type":"string"}}},
		"plain_key":{"type":"object","properties":{"n":{"type":"integer"}}}}}`)
	for _, name := range []string{"Info", "DefinitionsInfo", "Server", "KafkaServer", "Tag", "DefinitionsTag", "Tag320", "Schema", "PlainKey"} {
		typeNamed(t, p, name)
	}
}
