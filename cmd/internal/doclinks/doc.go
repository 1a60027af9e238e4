// Package doclinks checks that the documentation's relative links resolve:
// every inline link and image of README.md, scripts/README.md and docs/*.md
// whose target is a path names a file or folder that exists (relative to the
// file holding the link), and every #anchor, in the same file or in a target
// .md file, names one of its headings by GitHub's slug.
//
// Links inside fenced code blocks and code spans are text, not links, and
// are skipped; so are targets with a scheme (https:, mailto:, ...).
// Reference-style links ([text][ref]) and indented code blocks are not
// recognised. Its test, part of `make test`, runs the check over the
// repository and names every broken link with its file, line and reason;
// another checks that scripts/README.md lists every file of scripts/, and
// TestNoIssueNumbers that no user-facing text (README.md, docs/*.md,
// examples/, and the comments and string literals of the module's non-test
// Go files) names a project issue number; results/ and scripts/, the study
// records, are not covered.
package doclinks
