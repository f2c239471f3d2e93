package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Defaults of Options.
const (
	DefaultTimeout = 30 * time.Second
	DefaultMaxBody = 1 << 20
)

// Options are the limits of one endpoint; the zero value refuses private addresses, waits
// DefaultTimeout and reads DefaultMaxBody.
type Options struct {
	// AllowPrivate lets the client reach loopback, private and link-local addresses (the
	// entry's allow_private_network: true). false refuses them.
	AllowPrivate bool
	// AllowedURLs are patterns of the managed policy's allowed_http_urls: a URL matching
	// one (MatchURL) may reach any address. nil allows none beyond AllowPrivate.
	AllowedURLs []string
	// Timeout bounds the whole exchange (connect, request, answer); 0 = DefaultTimeout.
	Timeout time.Duration
	// Resolver resolves host names; nil = net.DefaultResolver. Tests use it to point a name
	// at an address of their choosing.
	Resolver *net.Resolver
}

// ErrRefused is the error of a request to an address the options refuse.
var ErrRefused = errors.New("netguard: address refused")

// RefusedError says which dialled address was refused and why.
type RefusedError struct {
	Addr   string // ip:port as dialled
	Reason string // "loopback", "private", "link-local (cloud metadata lives here)", ...
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("netguard: refused to connect to %s: %s address (set allow_private_network: true on the entry, or name the URL in the managed policy's allowed_http_urls)", e.Addr, e.Reason)
}

// Unwrap makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// Client returns a client for requests to rawURL under o. It follows no redirect and
// checks every address it dials.
func (o Options) Client(rawURL string) *http.Client {
	open := o.AllowPrivate || MatchAny(o.AllowedURLs, rawURL)
	d := &net.Dialer{Timeout: o.timeout(), Resolver: o.Resolver}
	if !open {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			return Check(address)
		}
	}
	tr := &http.Transport{
		Proxy:                 nil, // the dial check must see the destination, not a proxy
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   o.timeout(),
		ResponseHeaderTimeout: o.timeout(),
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       o.timeout(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// Check refuses an "ip:port" address that is loopback, private, shared, link-local,
// unspecified or multicast; nil means it may be dialled.
func Check(address string) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return &RefusedError{Addr: address, Reason: "unparseable"}
	}
	if r := classify(ip.Unmap()); r != "" {
		return &RefusedError{Addr: address, Reason: r}
	}
	return nil
}

var (
	shared = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT; some clouds' metadata
	nat64  = netip.MustParsePrefix("64:ff9b::/96")  // an IPv4 address reached through NAT64
	sixto4 = netip.MustParsePrefix("2002::/16")     // 6to4: an IPv4 address in bits 16-48
)

// classify names why ip is refused, "" when it is public. An IPv6 address that carries an
// IPv4 one (NAT64, 6to4) is judged by the IPv4 address it reaches.
func classify(ip netip.Addr) string {
	if b := ip.As16(); nat64.Contains(ip) {
		ip = netip.AddrFrom4([4]byte(b[12:16]))
	} else if sixto4.Contains(ip) {
		ip = netip.AddrFrom4([4]byte(b[2:6]))
	}
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local (the cloud metadata service lives here)"
	case ip.IsPrivate():
		return "private"
	case shared.Contains(ip):
		return "shared (100.64.0.0/10)"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	return ""
}

// ErrBodyTooLarge is reported by ReadBody for an answer longer than its cap.
var ErrBodyTooLarge = errors.New("netguard: answer body too large")

// ReadBody reads at most max bytes of r (0 = DefaultMaxBody); a longer body is
// ErrBodyTooLarge with what was read.
func ReadBody(r io.Reader, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBody
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if len(b) > max {
		return b[:max], fmt.Errorf("%w (more than %d bytes)", ErrBodyTooLarge, max)
	}
	return b, err
}

// Describe turns a request error into one line that names no secret: the URL is shown
// without its credentials and query, and a refused address, a timeout or a refused
// connection is said plainly.
func Describe(err error, rawURL string, timeout time.Duration) string {
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return refused.Error()
	case IsTimeout(err):
		return fmt.Sprintf("no answer from %s within %s", RedactURL(rawURL), timeout)
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprintf("request to %s failed: %v", RedactURL(rawURL), err)
}

// IsTimeout reports whether err is a request that ran out of time.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// MatchAny reports whether rawURL matches one of patterns (MatchURL).
func MatchAny(patterns []string, rawURL string) bool {
	for _, p := range patterns {
		if MatchURL(p, rawURL) {
			return true
		}
	}
	return false
}

// MatchURL reports whether rawURL matches pattern, where `*` matches any run of characters
// (Claude Code's allowedHttpHookUrls: "https://hooks.example.com/*"). The whole URL must
// match; there is no other special character.
func MatchURL(pattern, rawURL string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == rawURL
	}
	if !strings.HasPrefix(rawURL, parts[0]) {
		return false
	}
	rest := rawURL[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last {
			return strings.HasSuffix(rest, p) && len(rest) >= len(p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return true
}
