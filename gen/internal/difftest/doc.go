// Package difftest holds Go packages generated from gen/testdata/differential,
// a corpus of downstream-style schemas (a webhook's account, metrics
// samples, unions, a tool's configuration, a product catalog, webhook
// deliveries) that use the keywords users hit first. Its test proves that a strict decode plus Validate never vouches
// for a value jsonschema/v6 rejects, over every example of the corpus and
// mutations of each.
package difftest

//go:generate go run ../../../cmd/protogen -pkg account -o account ../../testdata/differential/account.json
//go:generate go run ../../../cmd/protogen -pkg catalog -o catalog ../../testdata/differential/catalog.json
//go:generate go run ../../../cmd/protogen -pkg config -o config ../../testdata/differential/config.json
//go:generate go run ../../../cmd/protogen -pkg metrics -o metrics ../../testdata/differential/metrics.json
//go:generate go run ../../../cmd/protogen -pkg shapes -o shapes ../../testdata/differential/shapes.json
//go:generate go run ../../../cmd/protogen -pkg webhook -o webhook ../../testdata/differential/webhook.json
//go:generate go run ../../../cmd/protogen -pkg lint -o lint ../../testdata/differential/lint.json
//go:generate go run ../../../cmd/protogen -pkg bomref -o bomref ../../testdata/differential/bomref.json
//go:generate go run ../../../cmd/protogen -pkg mixed -o mixed ../../testdata/differential/mixed.json
//go:generate go run ../../../cmd/protogen -pkg tuple -o tuple ../../testdata/differential/tuple.json
//go:generate go run ../../../cmd/protogen -pkg tuple7 -o tuple7 ../../testdata/differential/tuple7.json
//go:generate go run ../../../cmd/protogen -pkg draft04 -o draft04 ../../testdata/differential/draft04.json
//go:generate go run ../../../cmd/protogen -pkg defaulttag -o defaulttag ../../testdata/differential/defaulttag.json
//go:generate go run ../../../cmd/protogen -pkg nestedtag -o nestedtag ../../testdata/differential/nestedtag.json
//go:generate go run ../../../cmd/protogen -pkg kinds7 -o kinds7 ../../testdata/differential/kinds7.json
//go:generate go run ../../../cmd/protogen -pkg opentag -o opentag ../../testdata/differential/opentag.json
//go:generate go run ../../../cmd/protogen -pkg marks -o marks ../../testdata/differential/marks.json
//go:generate go run ../../../cmd/protogen -pkg recursive -o recursive ../../testdata/differential/recursive.json
//go:generate go run ../../../cmd/protogen -pkg optionaltag -o optionaltag ../../testdata/differential/optionaltag.json
//go:generate go run ../../../cmd/protogen -pkg shared -o shared ../../testdata/differential/shared.json
//go:generate go run ../../../cmd/protogen -pkg codes -o codes ../../testdata/differential/codes.json
//go:generate go run ../../../cmd/protogen -pkg scalarunion -o scalarunion ../../testdata/differential/scalarunion.json
