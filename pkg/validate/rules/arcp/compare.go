package arcp

import (
	"cmp"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file holds the compare check: two numbers of one message, compared
// exactly.

// compare checks Left Op Right when both numbers are present.
func (s *state) compare(m *protocol.Message, r *registry.ARCPRule) {
	lv := m.At(r.Left)
	rv := m.At(r.Right)
	c, both := compareNumbers(lv, rv)
	if !both {
		return
	}
	ok := true
	switch r.Op {
	case "<=":
		ok = c <= 0
	case "<":
		ok = c < 0
	case ">=":
		ok = c >= 0
	case ">":
		ok = c > 0
	}
	if !ok {
		m.Add(finding.Error, r.ID, r.Left, "%s is %s and %s is %s: ARCP v1.1 §%s wants %s %s %s", memberName(protocol.SplitPointer(r.Left)), protocol.Display(lv), r.Right, protocol.Display(rv), r.Section, r.Left, r.Op, r.Right)
	}
}

// compareNumbers compares two JSON numbers exactly (-1, 0, 1), and reports
// whether both are numbers it reads. Integers that fit an int64, the usual
// case, are compared as such; others as exact rationals.
func compareNumbers(a, b any) (int, bool) {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if !aok || !bok {
		return 0, false
	}
	ai, aerr := strconv.ParseInt(string(an), 10, 64)
	bi, berr := strconv.ParseInt(string(bn), 10, 64)
	if aerr == nil && berr == nil {
		return cmp.Compare(ai, bi), true
	}
	l, okL := number(an)
	r, okR := number(bn)
	if !okL || !okR {
		return 0, false
	}
	return l.Cmp(r), true
}

// number reads a JSON number exactly. Its cost stays bounded: at most 128
// characters, and an exponent of at most three digits.
func number(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok || len(n) > 128 {
		return nil, false
	}
	if i := strings.IndexAny(string(n), "eE"); i >= 0 && len(strings.TrimLeft(string(n[i+1:]), "+-")) > 3 {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}
