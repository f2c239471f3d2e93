// Package serverbench compares the hook server (package server, `hermesctl serve`) with Open
// Policy Agent's server on the same guard: load over loopback at 1, 16 and 256 keep-alive
// clients, one process per decision, and two replicas on one Redis against one. It is a
// module of its own so that its peers (OPA, vegeta) stay out of the product's go.mod. See
// README.md.
package serverbench
