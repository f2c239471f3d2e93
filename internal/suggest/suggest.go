// Package suggest finds the closest known name to a misspelt one, for "did you mean" hints.
package suggest

import "strings"

// Closest returns the candidate nearest to name by edit distance, or "" when none is close
// enough to be a plausible typo (distance at most a third of the name's length, and at most 3).
func Closest(name string, candidates []string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	best, bestDist := "", -1
	for _, c := range candidates {
		d := distance(name, strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := min(len(name)/3, 3)
	if limit < 1 {
		limit = 1
	}
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// distance is the Levenshtein distance between a and b (bytes).
func distance(a, b string) int {
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
