package registry

//go:generate go run ../../internal/tablegen -pkg registry -requirements -o requirements_gen.go
