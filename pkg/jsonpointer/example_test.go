package jsonpointer_test

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

func ExampleSplit() {
	for _, p := range []string{"", "/", "/params/a~1b", "params"} {
		toks, ok := jsonpointer.Split(p)
		fmt.Printf("%q: %q %v\n", p, toks, ok)
	}
	// Output:
	// "": [] true
	// "/": [""] true
	// "/params/a~1b": ["params" "a/b"] true
	// "params": [] false
}

func ExampleFormat() {
	fmt.Println(jsonpointer.Format([]string{"params", "a/b", "0"}))
	// Output: /params/a~1b/0
}
