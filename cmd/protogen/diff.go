package main

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff of two texts with three lines of
// context, computed from a longest common subsequence of lines.
func unifiedDiff(nameA, nameB, a, b string) string {
	x, y := splitLines(a), splitLines(b)
	// Trim the common prefix and suffix: generated files mostly agree.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		ai   int
		bi   int
	}
	var ops []op
	if len(mx)*len(my) > 25_000_000 {
		// Too large for the table: show the changed region whole.
		for i, l := range mx {
			ops = append(ops, op{'-', l, pre + i, -1})
		}
		for i, l := range my {
			ops = append(ops, op{'+', l, -1, pre + i})
		}
	} else {
		lcs := make([][]int32, len(mx)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(my)+1)
		}
		for i := len(mx) - 1; i >= 0; i-- {
			for j := len(my) - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(mx) || j < len(my) {
			switch {
			case i < len(mx) && j < len(my) && mx[i] == my[j]:
				ops = append(ops, op{' ', mx[i], pre + i, pre + j})
				i++
				j++
			case i < len(mx) && (j == len(my) || lcs[i+1][j] >= lcs[i][j+1]):
				// Deletions before insertions, as diff -u writes them.
				ops = append(ops, op{'-', mx[i], pre + i, -1})
				i++
			default:
				ops = append(ops, op{'+', my[j], -1, pre + j})
				j++
			}
		}
	}
	// Add the context around the changed region.
	var full []op
	for i := max(0, pre-3); i < pre; i++ {
		full = append(full, op{' ', x[i], i, i})
	}
	full = append(full, ops...)
	for k := 0; k < min(3, suf); k++ {
		full = append(full, op{' ', x[len(x)-suf+k], len(x) - suf + k, len(y) - suf + k})
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	// One hunk per run of changes, joined when their context overlaps.
	for start := 0; start < len(full); {
		for start < len(full) && full[start].kind == ' ' {
			start++
		}
		if start == len(full) {
			break
		}
		lo := max(0, start-3)
		end := start
		for k := start; k < len(full); k++ {
			if full[k].kind != ' ' {
				end = k
			} else if k-end > 6 {
				break
			}
		}
		hi := min(len(full), end+4)
		var aStart, bStart, aN, bN int
		aStart, bStart = -1, -1
		for _, o := range full[lo:hi] {
			if o.kind != '+' {
				aN++
				if aStart < 0 {
					aStart = o.ai
				}
			}
			if o.kind != '-' {
				bN++
				if bStart < 0 {
					bStart = o.bi
				}
			}
		}
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", aStart+1, aN, bStart+1, bN)
		for _, o := range full[lo:hi] {
			sb.WriteByte(o.kind)
			sb.WriteString(o.line)
			sb.WriteByte('\n')
		}
		start = hi
	}
	return sb.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
