// Package suggest finds the name a person most likely meant when they typed
// one that does not exist: a mistyped tool, settings key or command. It is
// the one place "did you mean" is decided, so every message agrees.
package suggest

import "strings"

// Closest returns the candidate nearest to word, or "" when none is near
// enough to be a typo rather than another name. Near enough: at most one
// edit for short words, two from six runes on, and never more than a third
// of the word (so "ls" does not suggest "rm"). Case is ignored; ties go to
// the earlier candidate, so callers list the likelier names first.
func Closest(word string, candidates []string) string {
	w := []rune(strings.ToLower(word))
	limit := 1
	if len(w) >= 6 {
		limit = 2
	}
	if third := (len(w) + 2) / 3; third < limit {
		limit = third
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue // the name itself is no suggestion
		}
		// A name that differs only in case is distance 0, the best there is.
		if d := distance(w, []rune(strings.ToLower(c))); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of two neighbours each count one, the
// swap being the commonest typo ("modle").
func distance(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
