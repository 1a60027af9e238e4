// Package suggest finds the valid name nearest to a mistyped one, for the
// "did you mean" hints of hyperctl's messages: unknown flags, environments,
// controllers, config keys and a controller's settings all use this one
// rule. It imports nothing of the project, so every layer may use it.
package suggest

import (
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Nearest returns the valid name closest to name, compared without case:
// the one within an edit distance of max(2, len(name)/3), and less than
// name's length (q is not a typo of d), with the smallest distance, or else the shortest one that holds name's letters in order
// and starts with its first two (iters → iterations). It returns "" when
// no name is close, or when name itself is valid.
func Nearest(name string, valid []string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	best, bestD := "", 0
	for _, v := range valid {
		d := levenshtein.ComputeDistance(name, strings.ToLower(v))
		if d <= max(2, len(name)/3) && d < len(name) && (best == "" || d < bestD) {
			best, bestD = v, d
		}
	}
	if best == "" && len(name) >= 3 {
		for _, v := range valid {
			if strings.HasPrefix(strings.ToLower(v), name[:2]) && subsequence(name, strings.ToLower(v)) && (best == "" || len(v) < len(best)) {
				best = v
			}
		}
	}
	if strings.EqualFold(best, name) {
		return ""
	}
	return best
}

// DidYouMean returns " (did you mean PREFIXX?)" for X, the Nearest valid
// name to name, or "" when none is close. prefix is what the user types
// before a name ("--" for a flag, "ppo." for a key of [ppo]).
func DidYouMean(name string, valid []string, prefix string) string {
	if best := Nearest(name, valid); best != "" {
		return fmt.Sprintf(" (did you mean %s%s?)", prefix, best)
	}
	return ""
}

// UnknownKey is the message for a key that its table does not have:
// "unknown key (did you mean PREFIXX?)" with X the Nearest allowed key,
// else "unknown key; allowed: " and the list. name is the key's last part;
// prefix is its table as the user writes it ("ppo.", or "" at the top).
func UnknownKey(name string, allowed []string, prefix string) string {
	if hint := DidYouMean(name, allowed, prefix); hint != "" {
		return "unknown key" + hint
	}
	return "unknown key; allowed: " + strings.Join(allowed, ", ")
}

// subsequence reports whether a's letters appear in b in order.
func subsequence(a, b string) bool {
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}
