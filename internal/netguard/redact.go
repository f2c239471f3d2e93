package netguard

import (
	"net/url"
	"slices"
	"strings"
)

// Redacted replaces a secret wherever something is printed.
const Redacted = "[redacted]"

// RedactURL is rawURL without a password and with every query value replaced, for logs
// and output; an unparseable URL is replaced whole.
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Redacted
	}
	if u.User != nil {
		u.User = url.User(Redacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{"x"}
		}
		u.RawQuery = strings.ReplaceAll(q.Encode(), "=x", "="+Redacted)
	}
	return u.String()
}

// RedactIn is text with every occurrence of rawURL replaced by RedactURL(rawURL): a message
// built around the URL as written (an approve hint) shows no secret of it.
func RedactIn(text, rawURL string) string {
	if rawURL == "" {
		return text
	}
	return strings.ReplaceAll(text, rawURL, RedactURL(rawURL))
}

// RedactHeaders maps each header name to Redacted, in sorted order of names: what is sent
// may be shown, never its values.
func RedactHeaders(h map[string]string) []string {
	out := make([]string, 0, len(h))
	for k := range h {
		out = append(out, k+": "+Redacted)
	}
	slices.Sort(out)
	return out
}
