package rfc0001

//go:generate go run ../../../cmd/protogen -pkg rfc0001 -o rfc0001_gen.go ../../../schema/arcp/rfc0001
