package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/homedir"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/netguard"
)

var webhooksTestCommand = &command{
	name:     "webhooks test",
	json:     true,
	args:     "<name>",
	help:     "send one signed sample delivery to a webhook of config.yaml now and print the answer (--event to choose the event)",
	examples: []string{"hermesctl webhooks test audit --event agent:end"},
	flags: func(fs *flag.FlagSet) runFunc {
		var event string
		fs.StringVar(&event, "event", "", "the `EVENT` of the sample (default: the webhook's first event that names one)")
		return func(ctx context.Context, c *cli, args []string) int { return runWebhooksTest(ctx, c, event, args) }
	},
}

// webhookTestResult is what `webhooks test` prints, the same in text and JSON. Header values
// are not shown: the signature is, since it is only good for this one delivery.
type webhookTestResult struct {
	Webhook   string `json:"webhook"`
	URL       string `json:"url"`
	Event     string `json:"event"`
	ID        string `json:"webhook_id"`
	Timestamp string `json:"webhook_timestamp"`
	Status    int    `json:"status"`
	Body      string `json:"body"`
	Error     string `json:"error,omitempty"`
	Ms        int64  `json:"duration_ms"`
}

func runWebhooksTest(ctx context.Context, c *cli, event string, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	eng, code := c.openEngine(ctx, engine.Options{IgnoreConsent: true})
	if eng == nil {
		return code
	}
	defer eng.Close(ctx)
	name := args[0]
	i := slices.IndexFunc(eng.Webhooks(), func(w *engine.WebhookInfo) bool { return w.Name == name })
	if i < 0 {
		var names []string
		for _, w := range eng.Webhooks() {
			names = append(names, w.Name)
		}
		return c.fail(exitUsage, "no webhook named %q in %s (webhooks: %s)", name, homedir.Resolve(c.home), orDash(strings.Join(names, ", ")))
	}
	info := eng.Webhooks()[i]
	if info.Refused != "" {
		return c.fail(exitFailed, "webhook %q is not started: %s", name, info.Refused)
	}
	if event == "" {
		event = sampleEvent(info.Events)
	}
	cwd, _ := os.Getwd()
	data := hookspec.SampleContext(event)
	if hookspec.IsHook(event) {
		data = hookspec.SampleKwargs(event, cwd)
	}
	a, err := eng.TestWebhook(ctx, name, event, data)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	res := webhookTestResult{Webhook: name, URL: netguard.RedactURL(info.URL), Event: event, ID: a.ID, Timestamp: a.Timestamp,
		Status: a.Status, Body: a.Body, Error: a.Err, Ms: a.Took.Milliseconds()}
	if c.json {
		if code := c.printJSON(res); code != exitOK {
			return code
		}
	} else {
		fmt.Fprintf(c.stdout, "webhook %s -> %s\nevent %s, webhook-id %s, webhook-timestamp %s\n", printable(name), printable(res.URL), printable(event), a.ID, a.Timestamp)
		if a.Status != 0 {
			fmt.Fprintf(c.stdout, "answer %d in %dms\n%s\n", a.Status, res.Ms, printable(strings.TrimRight(a.Body, "\n")))
		}
		if a.Err != "" {
			fmt.Fprintf(c.stdout, "failed: %s\n", printable(a.Err))
		}
	}
	if a.Err != "" {
		return exitFailed
	}
	return exitOK
}

// sampleEvent is the first event of a webhook's list that names one, else pre_tool_call.
func sampleEvent(events []string) string {
	for _, e := range events {
		if !strings.Contains(e, "*") {
			return e
		}
	}
	return hooknames.PreToolCall
}
