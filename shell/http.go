package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/netguard"
)

// post fires a `type: http` hook: the payload is POSTed to its URL with its headers, and the
// answer's body is read like a command hook's stdout. A non-2xx status, a body that is not a
// JSON object (an empty body is no answer), a body over the cap, a refused address, a
// failed connection and a timeout are hook errors (a block under fail_closed). Redirects are
// not followed: a 3xx is a non-2xx answer.
func (h *Hook) post(ctx context.Context, body []byte, kwargs map[string]any, opts RunOptions, log *slog.Logger) Result {
	timeout, limit := h.limits(opts)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := h.HTTP
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return h.failed(hookspec.StatusError, "cannot build the request: "+netguard.Describe(err, t.URL, timeout))
	}
	for k, v := range t.HeaderValues(opts.Getenv) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "hermes-hooks")
	}
	guard := netguard.Options{AllowPrivate: t.AllowPrivate, AllowedURLs: opts.AllowedURLs, Timeout: timeout}
	log.Debug("http hook sending", "url", netguard.RedactURL(t.URL), "headers", netguard.RedactHeaders(t.Headers), "timeout", timeout)
	resp, err := h.httpClient(guard).Do(req)
	if err != nil {
		status, why := hookspec.StatusError, netguard.Describe(err, t.URL, timeout)
		switch {
		case ctx.Err() != nil:
			status, why = hookspec.StatusCancelled, fmt.Sprintf("cancelled (%v)", context.Cause(ctx))
		case tctx.Err() != nil || netguard.IsTimeout(err):
			status, why = hookspec.StatusTimeout, fmt.Sprintf("timed out after %s", timeout)
		}
		res := Result{Status: status, ExitCode: -1, Err: h.errorf("%s", why)}
		h.failClosed(&res, why)
		return res
	}
	defer resp.Body.Close()
	answer, readErr := netguard.ReadBody(resp.Body, limit)
	res := Result{Status: hookspec.StatusOK, ExitCode: -1, HTTPStatus: resp.StatusCode, Stdout: string(answer)}
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		why := "answered " + resp.Status
		if loc := resp.Header.Get("Location"); loc != "" {
			why += " (redirect to " + netguard.RedactURL(loc) + " not followed)"
		}
		res.Status, res.Err = hookspec.StatusError, h.errorf("%s", why)
		h.failClosed(&res, why)
	case errors.Is(readErr, netguard.ErrBodyTooLarge):
		why := fmt.Sprintf("answer exceeded %d bytes and was truncated", limit)
		res.Status, res.Err = hookspec.StatusError, h.errorf("%s; answer ignored", why)
		h.failClosed(&res, why)
	case readErr != nil:
		why := "reading the answer failed: " + netguard.Describe(readErr, t.URL, timeout)
		if (tctx.Err() != nil || netguard.IsTimeout(readErr)) && ctx.Err() == nil {
			res.Status, why = hookspec.StatusTimeout, fmt.Sprintf("timed out after %s reading the answer", timeout)
		} else {
			res.Status = hookspec.StatusError
		}
		res.Err = h.errorf("%s", why)
		h.failClosed(&res, why)
	default:
		h.interpretHTTP(&res, kwargs, log)
	}
	return res
}

// interpretHTTP reads a 2xx answer: empty is no answer; a JSON object is read as a command
// hook's stdout would be (in the hook's dialect); anything else is a hook error.
func (h *Hook) interpretHTTP(res *Result, kwargs map[string]any, log *slog.Logger) {
	text := strings.TrimSpace(res.Stdout)
	if text == "" {
		return
	}
	parsed, err := decodeOutput([]byte(text))
	if _, obj := parsed.(map[string]any); err != nil || !obj {
		why := "the answer is not a JSON object"
		res.Status, res.Err = hookspec.StatusError, h.errorf("%s: %q", why, truncateChars(text, 80))
		h.failClosed(res, why)
		return
	}
	if h.Dialect == DialectClaude {
		var problem string
		res.Parsed, res.Answer, problem = claudeOutcome(h.Event, 0, text, "", h.toolTable(), kwargs)
		if problem != "" {
			res.Status, res.Err = hookspec.StatusError, h.errorf("%s", problem)
			if res.Answer.Kind == hookspec.None {
				h.failClosed(res, problem)
			}
		}
		if obj, ok := res.Parsed.(map[string]any); ok {
			if msg, _ := obj["systemMessage"].(string); strings.TrimSpace(msg) != "" {
				log.Warn("http hook message: "+msg, "hook", h.display(), "event", h.Event)
			}
		}
		return
	}
	res.Parsed, res.Answer, _ = parseOutput(h.Event, []byte(text))
}

// display is how the hook is named in messages: its command, or its URL without secrets.
func (h *Hook) display() string {
	if h.Type == TypeHTTP {
		return netguard.RedactURL(h.Command)
	}
	return h.Command
}

// httpClient is a client of a type: http hook with the limits it was built for.
type httpClient struct {
	key string
	c   *http.Client
}

// httpClient returns the hook's client for guard, built once and kept, so that firings
// reuse its connections (no new TLS handshake per tool call). A client for other limits
// (the managed policy changed) replaces it.
func (h *Hook) httpClient(guard netguard.Options) *http.Client {
	key := fmt.Sprintf("%v|%q|%s", guard.AllowPrivate, guard.AllowedURLs, guard.Timeout)
	if hc := h.client.Load(); hc != nil && hc.key == key {
		return hc.c
	}
	c := guard.Client(h.HTTP.URL)
	if old := h.client.Swap(&httpClient{key: key, c: c}); old != nil {
		old.c.CloseIdleConnections()
	}
	return c
}

// closeHTTP closes the idle connections of a type: http hook (Close).
func (h *Hook) closeHTTP() {
	if hc := h.client.Swap(nil); hc != nil {
		hc.c.CloseIdleConnections()
	}
}
