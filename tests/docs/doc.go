// Package docs holds the test that runs every sh snippet of README.md and docs/*.md and
// compares the output blocks marked <!-- docs-test: output --> with what the snippets print,
// so that the documents cannot drift from the program. A snippet that prints something
// without an output block fails: what a reader is shown is what the program prints. It has no code of its own: see
// docs_test.go. Run it with `go test ./tests/docs/ -v`; -short skips it; DOCS_TEST_DUMP=dir
// keeps each page's script and what it printed there. TestGoBlocks compiles and vets every go
// block of the same pages (goblocks_test.go says how a fragment is wrapped).
package docs
