package engine

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/netguard"
	"github.com/hermes-hooks/hermes/shell"
	"github.com/hermes-hooks/hermes/webhook"
)

// retireWebhooks bounds how long a replaced set's queued deliveries may still be sent.
const retireWebhooks = 30 * time.Second

// WebhookInfo describes one outbound webhook declared in a config.yaml.
type WebhookInfo struct {
	Name      string   `json:"name"`
	URL       string   `json:"url"` // without credentials or query values
	Events    []string `json:"events"`
	Matcher   string   `json:"matcher,omitempty"`
	SecretEnv string   `json:"secret_env"`
	Timeout   float64  `json:"timeout_s"` // one attempt
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Layer     string   `json:"layer"`
	Refused   string   `json:"refused,omitempty"` // why the managed policy refuses it
}

// loadWebhooks reads the webhooks: of both layers, applies the policy to the user's, and
// starts their dispatcher (nil when there is none, or with Options.DisableWebhooks). It
// returns the endpoints it would start too.
func (e *Engine) loadWebhooks(mgd *managed, cfg *config) (*webhook.Dispatcher, []*webhook.Endpoint, []*WebhookInfo, []hookspec.Warning) {
	known := func(s string) bool { return hookspec.IsHook(s) || hookspec.IsEvent(s) }
	var eps []*webhook.Endpoint
	var infos []*WebhookInfo
	var warns []hookspec.Warning
	names := map[string]string{} // name -> file that declares it
	add := func(c *config, layer string) {
		if c == nil {
			return
		}
		list, w := webhook.Parse(c.file, c.webhooks, known)
		warns = append(warns, w...)
		for _, ep := range list {
			if other, dup := names[ep.Name]; dup {
				warns = append(warns, hookspec.Warning{File: ep.File, Line: ep.Line, Msg: "webhook " + ep.Name + " not started: " + other + " declares a webhook of that name"})
				continue
			}
			names[ep.Name] = ep.File
			info := &WebhookInfo{Name: ep.Name, URL: netguard.RedactURL(ep.URL), Events: ep.Events, Matcher: ep.Matcher,
				SecretEnv: ep.SecretEnv, Timeout: ep.Timeout.Seconds(), File: ep.File, Line: ep.Line, Layer: layer}
			if layer == LayerUser {
				info.Refused = mgd.policy.refuses(shell.TypeHTTP, ep.URL)
			}
			infos = append(infos, info)
			if info.Refused != "" {
				warns = append(warns, hookspec.Warning{File: ep.File, Line: ep.Line, Msg: "webhook " + ep.Name + " not started: " + info.Refused})
				continue
			}
			eps = append(eps, ep)
		}
	}
	add(mgd.cfg, LayerManaged)
	add(cfg, LayerUser)
	if len(eps) == 0 || e.opts.DisableWebhooks || e.opts.DryRun {
		return nil, eps, infos, warns
	}
	return e.dispatcher(eps, mgd.policy), eps, infos, warns
}

// dispatcher starts the deliveries to eps.
func (e *Engine) dispatcher(eps []*webhook.Endpoint, p *Policy) *webhook.Dispatcher {
	var obs webhook.Observer
	if e.opts.Metrics != nil {
		obs = e.opts.Metrics
	}
	return webhook.New(eps, webhook.Options{Logger: e.logger, Getenv: getenv(e.opts.Getenv), AllowedURLs: p.allowedURLs(), Observer: obs})
}

// webhookCallback is the last callback of a hook event some webhook wants: it queues the
// event's payload (the JSON a command hook reads) and returns at once.
type webhookCallback struct {
	d   *webhook.Dispatcher
	cwd func() string // the engine's workDir: the payload's cwd, as a shell hook's
}

func (webhookCallback) stats() *hookMetrics { return nil }

func (c webhookCallback) fire(_ context.Context, hook string, kw args, _ bool, _ map[string]any, r *hookspec.Result) {
	*r = c.notify(hook, kw)
}

// notify hands the firing to the endpoints that want it.
func (c webhookCallback) notify(hook string, kw args) hookspec.Result {
	m := kw.Map()
	tool := toolNameOf(m)
	if !c.d.WantsTool(hook, tool) { // no endpoint's matcher takes this tool: nothing to build
		return hookspec.Result{Source: hookspec.SourceWebhook, Name: "webhooks", Status: hookspec.StatusSkipped}
	}
	cwd := c.cwd()
	c.d.NotifyLazy(hook, tool, func() ([]byte, error) {
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		return shell.BuildPayload(hook, m, cwd)
	})
	return hookspec.Result{Source: hookspec.SourceWebhook, Name: "webhooks", Status: hookspec.StatusOK}
}

func toolNameOf(m map[string]any) string {
	s, _ := m["tool_name"].(string)
	return s
}

// NotifyWebhooks queues an event the engine does not fire itself (a gateway event: package
// gateway's Emit calls it) for the webhooks that want it; it never blocks. Hook events
// reach the webhooks through the engine.
func (e *Engine) NotifyWebhooks(event string, data map[string]any) {
	if e == nil {
		return
	}
	d := e.set.Load().webhooks
	if d == nil || !d.Wants(event) {
		return
	}
	d.Notify(event, data)
}

// Webhooks describes the outbound webhooks of both layers, started or not.
func (e *Engine) Webhooks() []*WebhookInfo { return e.set.Load().webhookInfo }

// TestWebhook sends one sample delivery of event with data to the webhook named name, now,
// on a dispatcher of its own (what is queued is not delayed); webhook.ErrUnknown when no
// started webhook has that name. `hermesctl webhooks test` is built on it.
func (e *Engine) TestWebhook(ctx context.Context, name, event string, data map[string]any) (webhook.Attempt, error) {
	set := e.set.Load()
	i := slices.IndexFunc(set.webhookEndpoints, func(ep *webhook.Endpoint) bool { return ep.Name == name })
	if i < 0 {
		return webhook.Attempt{}, webhook.ErrUnknown
	}
	d := e.dispatcher(set.webhookEndpoints[i:i+1], set.policy) // its own, sending this one sample only
	defer d.Close(ctx)
	cwd := e.workDir()
	body, err := shell.BuildPayload(event, data, cwd)
	if err != nil {
		return webhook.Attempt{}, err
	}
	return d.Test(ctx, name, event, webhook.Payload{Tool: toolNameOf(data), JSON: body})
}

// WebhookDelivered implements webhook.Observer.
func (m *Metrics) WebhookDelivered(name, event string, attempts int, took time.Duration) {
	m.webhookDeliveries.With(name, event).Inc()
	m.webhookLatency.With(name, event).Observe(took.Seconds())
}

// WebhookAttemptFailed implements webhook.Observer.
func (m *Metrics) WebhookAttemptFailed(name, event string, retry bool) {
	m.webhookFailures.With(name, event).Inc()
	if retry {
		m.webhookRetries.With(name, event).Inc()
	}
}

// WebhookDropped implements webhook.Observer.
func (m *Metrics) WebhookDropped(name, event string, reason hookspec.DropReason) {
	m.drops.With(hookspec.SourceWebhook, name, event, reason.String()).Inc()
}
