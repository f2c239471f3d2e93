package engine

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/enginelink"
	"github.com/hermes-hooks/hermes/store"
	"github.com/hermes-hooks/hermes/webhook"
)

// The engine's parts that package gateway and hermesctl use, kept out of its public API.
func init() {
	enginelink.LoadGatewayHooks = func(eng any, ctx context.Context, opts enginelink.GatewayHookOptions, running []enginelink.GatewayHook) ([]enginelink.GatewayHook, []*enginelink.GatewayHookInfo, []hookspec.Warning, error) {
		prev := make([]*gatewayHook, len(running))
		for i, h := range running {
			prev[i] = h.(*gatewayHook)
		}
		hooks, infos, warns, err := eng.(*Engine).loadGatewayHooks(ctx, opts, prev)
		out := make([]enginelink.GatewayHook, len(hooks))
		for i, h := range hooks {
			out[i] = h
		}
		outInfos := make([]*enginelink.GatewayHookInfo, len(infos))
		for i, info := range infos {
			outInfos[i] = (*enginelink.GatewayHookInfo)(info)
		}
		return out, outInfos, warns, err
	}
	enginelink.StatusOf = func(err error) hookspec.Status {
		if err == nil {
			return hookspec.StatusOK
		}
		return statusOf(err)
	}
	enginelink.NotifyWebhooks = func(eng any, event string, data map[string]any) {
		eng.(*Engine).notifyWebhooks(event, data)
	}
	enginelink.Tracer = func(eng any) trace.Tracer { return eng.(*Engine).tracer }
	enginelink.StoreBackend = func(eng any) (store.Backend, error) { return eng.(*Engine).currentBackend() }
	enginelink.OpenStore = openStore
	enginelink.TestWebhook = func(eng any, ctx context.Context, name, event string, data map[string]any) (webhook.Attempt, error) {
		return eng.(*Engine).testWebhook(ctx, name, event, data)
	}
}
