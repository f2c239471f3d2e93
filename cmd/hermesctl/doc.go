// Command hermesctl lists, tests, approves and debugs the hooks of a hermes home.
//
// Usage:
//
//	hermesctl [--home DIR] [--accept-hooks] [-v] <command> [flags]
//
//	hooks list [--json]                  every gateway, plugin and shell hook
//	hooks test <event> [--for-tool X] [--subagent TYPE] [--payload-file F] [--json]
//	                                     fire every matching hook on a sample payload
//	hooks allow <event> <command> [--json]
//	                                     approve a shell hook
//	hooks revoke <command> [--json]      remove every approval of a command
//	hooks import claude|codex|gemini <settings file|plugin dir> [--json]
//	                                     add another agent's hooks to config.yaml, in its dialect
//	hooks doctor [--json]                check every hook; exit 3 on a problem
//	hooks watch                          reload the home whenever it changes, printing what changed
//	hooks stats <transcript.jsonl> [--json|--prometheus]
//	                                     per-hook calls, errors, timeouts, blocks and latency of a replay
//	plugins list [--json]                plugins with priority, hooks and permissions
//	store list [hook] [--json]           the hooks that keep state, or one hook's keys
//	store get <hook> <key> [--json]      one key's value, as JSON
//	store delete <hook> <key> [--json]   delete one key
//	webhooks test <name> [--event E] [--json]
//	                                     send one signed sample delivery to a webhook
//	replay <transcript.jsonl> [--json] [--html FILE] [--otlp-endpoint URL]
//	                                     run a transcript through the reference gateway
//	demo [--json] [--html FILE] [--otlp-endpoint URL]
//	                                     replay the bundled example
//	hook claude [--fail-open] [--server URL]
//	                                     run as Claude Code's command hook: its payload on stdin,
//	                                     the answer as it reads one (exit code, stderr, JSON)
//	hook codex [--fail-open]             the same, as Codex's command hook
//	hook gemini [--fail-open]            the same, as Gemini CLI's command hook
//	hook install claude|codex|gemini [--user | --project DIR] [--local] [--dry-run]
//	                                     add `hermesctl hook <agent>` to the agent's settings
//	hook uninstall claude|codex|gemini   remove those entries, and nothing else
//	serve [--addr HOST:PORT|unix:PATH] [--tls-cert F --tls-key F] [token add|list|revoke NAME]
//	                                     answer the home's hooks over HTTP
//	bundle build <home> -o FILE --revision N [--key PRIV] [--json]
//	                                     a reproducible archive of a home's hook files and manifest
//	bundle sign <bundle> --key PRIV [-o FILE] [--json]
//	                                     add a signature (DSSE, Ed25519)
//	bundle verify <bundle> --key PUB [--key PUB...] [--json]
//	                                     check the signature and every file; exit 3 when it fails
//	bundle inspect <bundle> [--json]     revision, files, digests, who signed (not verified)
//	bundle keygen -o PREFIX [--json]     an Ed25519 key pair: PREFIX and PREFIX.pub
//	bundle pull [--managed-home DIR] [--json]
//	                                     fetch, verify and activate the managed home's bundle
//	bundle push <bundle> oci://REGISTRY/REPOSITORY:TAG [--json]
//	                                     publish a signed bundle to an OCI registry
//	version [--json]                     print the version (also --version)
//	completion bash|zsh|fish             print a shell completion script
//	help [command]                       usage of everything, a group or a command
//
// The home is --home, else $HERMES_HOME, else ~/.hermes. Logs and warnings go to stderr,
// results to stdout. Text that comes from hooks (errors, results, output excerpts, names and
// paths read from files, log lines) is printed with control characters escaped (printable);
// --json output is one JSON object, escaped by the encoder, and nothing else on stdout.
// Status words are coloured on a terminal only: not when piped, nor with NO_COLOR set;
// CLICOLOR_FORCE keeps the colour when piped.
//
// Exit codes:
//
//	0  ok
//	1  internal error
//	2  usage error: unknown command, unknown event for test, bad flag
//	3  a hook or check failed (test: a hook errored or timed out, or one it could fire has a
//	   load warning; doctor: a problem found; replay: the transcript could not be followed;
//	   bundle: a bundle that does not verify, a home file a bundle cannot hold)
//	5  invalid configuration: an unreadable or invalid --payload-file (a key or a value the
//	   hook would not receive as meant), an unreadable or unparsable transcript, a broken
//	   config.yaml, an unreadable bundle or key file
package main

// Exit codes, as documented above.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2
	exitFailed   = 3
	exitConfig   = 5
)
