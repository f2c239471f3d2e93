// The names the Go blocks of the docs use without declaring them: the host's own context,
// home, logger, message, model and tools. TestGoBlocks compiles each fragment in a package
// of its own, in a file made of this one and the fragment.
package names

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/gateway/runner"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/metrics"
	"github.com/hermes-hooks/hermes/metrics/promcollector"
)

var (
	ctx, shutdownCtx                            context.Context
	home, sid, id, uid, chat, text, system, msg string
	isNew                                       bool
	logger                                      *slog.Logger
	eng                                         *engine.Engine
	gw                                          *gateway.Gateway
	in                                          gateway.Message // an inbound message of a chat
	m                                           *engine.Metrics
	args                                        map[string]any
	history, messages                           []hookspec.Message
	tools                                       []map[string]any
	call                                        hookspec.ToolCall
	agent                                       runner.Agent
	tp                                          trace.TracerProvider
	tracer                                      trace.Tracer
	exporter                                    sdktrace.SpanExporter
	askInChat                                   = engine.Options{}.Approve
	myTools                                     interface {
		Run(context.Context, hookspec.ToolCall) (string, error)
	}
	myModel interface {
		Complete(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error)
	}
	reply, send func(text string) error                                                  // to the user
	askModel    func(msg, context string) hookspec.ToolCall                              // the model's next tool call
	runTool     func(context.Context, hookspec.ToolCall) (string, error)                 // runs a tool
	callModel   func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) // asks the model
)

// The packages a block may use beside those above.
var (
	_ = io.ReadAll
	_ = log.Println
	_ = http.HandleFunc
	_ = os.Getenv
	_ = prometheus.MustRegister
	_ = metrics.NewRegistry
	_ = promcollector.New
	_ = standardwebhooks.NewWebhook
	_ = sdktrace.NewTracerProvider
)
