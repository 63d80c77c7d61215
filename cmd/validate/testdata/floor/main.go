// Command floor is the baseline BenchmarkGoals measures validate against:
// a program that reads a JSON Lines trace and decodes each line into any
// with encoding/json, and does nothing else. It prints the number of lines.
//
//	go build -o floor ./cmd/validate/testdata/floor && ./floor trace.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor trace.jsonl")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			fmt.Fprintf(os.Stderr, "line %d: %v\n", n+1, err)
			os.Exit(1)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(n)
}
