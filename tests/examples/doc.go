// Package examples tests every example home of scripts/examples the way a user runs it:
// each test copies the home to $HOME/.hermes of a temporary HOME (the layout the examples'
// permissions.fs entries and the `~/.hermes/agent-hooks/...` form of their shell hooks
// expect), loads it with engine.New / gateway.New, fires the events and checks the effect:
// files written, requests received by a local HTTP server, blocks, context, rewrites and
// the programs run.
package examples
