package engine

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"gopkg.in/yaml.v3"
)

// decisionLogKeys are the keys of the managed config's decision_log: section.
var decisionLogKeys = []string{"url", "mask", "batch", "flush_interval", "buffer", "headers", "token_env"}

// declog is the decision log in force: the masks (for the audit log too) and, with a URL,
// the logger that ships every decision.
type declog struct {
	opts   decisionlog.Options // as configured, without the counters
	masker *decisionlog.Masker
	log    *decisionlog.Logger // nil: masks only
}

type callerKey struct{}

// WithCaller returns ctx naming who makes the calls made with it (a server token's name,
// the agent of a command hook): the decision log records it with each decision.
func WithCaller(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, callerKey{}, name)
}

// CallerOf is the caller WithCaller put in ctx; "" for none.
func callerOf(ctx context.Context) string {
	s, _ := ctx.Value(callerKey{}).(string)
	return s
}

// parseDecisionLog reads the managed config's decision_log: {url, mask, batch,
// flush_interval, buffer, headers, token_env}; nil when there is none. Any mistake is an
// error: an audit trail the operator asked for is not silently missing.
func parseDecisionLog(file string, n *yaml.Node, getenv func(string) string) (*decisionlog.Options, []hookspec.Warning, error) {
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, nil, manifest.Errorf(file, n, "decision_log must be a mapping (e.g. decision_log: {url: \"https://logs.example/v1\", mask: [args.command]})")
	}
	fields, warns := manifest.Fields(file, n, decisionLogKeys)
	o := &decisionlog.Options{}
	var err error
	for _, k := range decisionLogKeys { // in this order: token_env's Authorization wins over headers'
		f, ok := fields[k]
		if !ok {
			continue
		}
		switch k {
		case "url":
			o.URL, err = manifest.String(file, f, "decision_log.url")
		case "mask":
			if o.Mask, err = manifest.StringList(file, f, "decision_log.mask"); err == nil {
				if _, merr := decisionlog.NewMasker(o.Mask); merr != nil {
					err = manifest.Errorf(file, f, "%v", merr)
				}
			}
		case "batch", "buffer":
			err = positive(file, f, k, map[string]*int{"batch": &o.Batch, "buffer": &o.Buffer}[k])
		case "flush_interval":
			o.FlushInterval, err = duration(file, f, "decision_log.flush_interval")
		case "headers":
			o.Headers, err = stringMap(file, f, "decision_log.headers")
		case "token_env":
			err = bearer(file, f, o, getenv)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if err := o.Check(); err != nil && o.URL != "" {
		return nil, nil, manifest.Errorf(file, fields["url"], "%v", err)
	}
	return o, warns, nil
}

func positive(file string, n *yaml.Node, key string, dst *int) error {
	v, err := manifest.Int(file, n, "decision_log."+key)
	if err == nil && v < 1 {
		err = manifest.Errorf(file, n, "decision_log.%s must be at least 1", key)
	}
	*dst = v
	return err
}

func duration(file string, n *yaml.Node, key string) (time.Duration, error) {
	s, err := manifest.String(file, n, key)
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, manifest.Errorf(file, n, "%s must be a duration such as 5s or 500ms, got %q", key, s)
	}
	return d, nil
}

func stringMap(file string, n *yaml.Node, key string) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, manifest.Errorf(file, n, "%s must be a mapping of header names to strings", key)
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		v, err := manifest.String(file, manifest.Resolve(n.Content[i+1]), key+"."+n.Content[i].Value)
		if err != nil {
			return nil, err
		}
		out[n.Content[i].Value] = v
	}
	return out, nil
}

// bearer sets Authorization: Bearer <the value of the variable token_env names>.
func bearer(file string, n *yaml.Node, o *decisionlog.Options, getenv func(string) string) error {
	name, err := manifest.String(file, n, "decision_log.token_env")
	if err != nil {
		return err
	}
	tok := strings.TrimSpace(getenv(name))
	if tok == "" {
		return manifest.Errorf(file, n, "decision_log.token_env names $%s, which is not set; set it in the environment of the process running the hooks", name)
	}
	if o.Headers == nil {
		o.Headers = map[string]string{}
	}
	o.Headers["Authorization"] = "Bearer " + tok
	return nil
}

// useDecisionLog puts in force the decision log of o (nil: none), keeping the one that runs
// when o did not change; the one it replaces sends what it holds in the background.
func (e *Engine) useDecisionLog(o *decisionlog.Options) error {
	cur := e.declog.Load()
	if o == nil {
		if e.declog.Swap(nil) != nil {
			go cur.close()
		}
		return nil
	}
	if cur != nil && reflect.DeepEqual(cur.opts, *o) {
		return nil
	}
	d := &declog{opts: *o}
	d.masker, _ = decisionlog.NewMasker(o.Mask)
	if o.URL != "" {
		lo := *o
		lo.Logger = e.logger
		lo.Sent, lo.Dropped, lo.Failed = e.opts.Metrics.decisionLogCounters()
		l, err := decisionlog.New(lo)
		if err != nil {
			return fmt.Errorf("engine: decision log: %w", err)
		}
		d.log = l
	}
	if old := e.declog.Swap(d); old != nil {
		go old.close()
	}
	return nil
}

// close sends what the log holds, for at most a minute.
func (d *declog) close() {
	if d == nil || d.log == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d.log.Close(ctx)
}

// decisionLogOptions are the decision log of the host (Options.DecisionLog), else of the
// managed config, with a warning when the host's overrides the managed config's.
func (e *Engine) decisionLogOptions(mgd *managed) (*decisionlog.Options, []hookspec.Warning) {
	if e.opts.DecisionLog == nil {
		return mgd.declog, nil
	}
	if mgd.declog != nil {
		return e.opts.DecisionLog, []hookspec.Warning{{File: mgd.cfg.file, Line: mgd.cfg.declogLine,
			Msg: "decision_log: is ignored: the program running the hooks gives its own decision log (Options.DecisionLog), which wins"}}
	}
	return e.opts.DecisionLog, nil
}

// logDecision records one firing of a point that has hooks: its outcome ("none" when no
// hook decided), the deciding hook, every hook that ran, and the call's arguments.
func (e *Engine) logDecision(ctx context.Context, l *decisionlog.Logger, rep Report, kw args) {
	if !l.Reserve() { // full: dropped (and counted) before anything is built
		return
	}
	en := decisionlog.Entry{Time: time.Now().UTC(), Event: rep.Event.String(), Caller: callerOf(ctx), Outcome: kindName(rep.Decision.Kind),
		Hooks: make([]decisionlog.Run, len(rep.Hooks))}
	for i, h := range rep.Hooks {
		en.Hooks[i] = decisionlog.Run{Hook: h.Name, Source: h.Source, Status: h.Status.String()}
	}
	if h := rep.decider(); h != nil && rep.Decision.Kind != hookspec.None {
		en.Hook, en.Source = h.Name, h.Source
	}
	en.Input = rep.Payload
	if en.Input == nil {
		en.Input = kw.Map()
	}
	d := rep.Decision
	res := map[string]any{}
	for k, v := range map[string]string{"message": d.Message, "text": d.Text} {
		if v != "" {
			res[k] = v
		}
	}
	if d.Args != nil {
		res["args"] = d.Args
	}
	if len(res) > 0 {
		en.Result = res
	}
	l.Log(en)
}

// closeDecisionLog sends what the decision log holds until ctx is done.
func (e *Engine) closeDecisionLog(ctx context.Context) {
	if d := e.declog.Swap(nil); d != nil && d.log != nil {
		d.log.Close(ctx)
	}
}

// masker is the decision log's masker (for the audit log too); nil masks nothing.
func (e *Engine) masker() *decisionlog.Masker {
	if d := e.declog.Load(); d != nil {
		return d.masker
	}
	return nil
}
