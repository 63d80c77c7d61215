package wire

import (
	"net/url"
)

// IsDateTime reports whether s is an RFC 3339 date-time, as JSON Schema's
// "date-time" format defines it: full date, "T", full time with optional
// fraction, and "Z" or a numeric offset. A leap second is allowed only at
// 23:59:60 UTC.
func IsDateTime(s string) bool {
	n := func(i, w int) (int, bool) {
		if i+w > len(s) {
			return 0, false
		}
		v := 0
		for _, c := range s[i : i+w] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := n(0, 4)
	month, ok2 := n(5, 2)
	day, ok3 := n(8, 2)
	if !ok1 || !ok2 || !ok3 || len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') {
		return false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return false
	}
	hour, ok1 := n(11, 2)
	minute, ok2 := n(14, 2)
	second, ok3 := n(17, 2)
	if !ok1 || !ok2 || !ok3 || s[13] != ':' || s[16] != ':' || hour > 23 || minute > 59 || second > 60 {
		return false
	}
	i := 19
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i >= len(s) {
		return false
	}
	offset := 0
	switch s[i] {
	case 'Z', 'z':
		i++
	case '+', '-':
		oh, ok1 := n(i+1, 2)
		om, ok2 := n(i+4, 2)
		if !ok1 || !ok2 || i+3 >= len(s) || s[i+3] != ':' || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if s[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return false
	}
	if i != len(s) {
		return false
	}
	if second == 60 {
		// The leap second is 23:59:60 in UTC.
		utc := ((hour*60+minute-offset)%(24*60) + 24*60) % (24 * 60)
		return utc == 23*60+59
	}
	return true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// IsURI reports whether s is an absolute URI (with a scheme), as JSON
// Schema's "uri" format asks.
func IsURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.IsAbs()
}
