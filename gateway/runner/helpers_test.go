package runner

import (
	"context"
	"log/slog"
	"testing"

	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

func hookFiles(name, manifest, handler string) map[string]string {
	return map[string]string{"hooks/" + name + "/HOOK.yaml": manifest, "hooks/" + name + "/handler.lua": handler}
}

func newGateway(t *testing.T, home string, opts gateway.Options) (*gateway.Gateway, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	opts.Engine.Home, opts.Engine.Logger = home, logger
	g, err := gateway.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	return g, logs
}
