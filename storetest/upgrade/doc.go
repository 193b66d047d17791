// Package upgrade holds the upgrade test of the stores: a SQLite file and a
// PostgreSQL dump made by an earlier release of the program (testdata/),
// each with the answers that release gave from it, are opened by the
// current program, which applies its migrations, and must give the same
// answers, from the store and from the edge. See testdata/README.md for how
// the fixtures were made.
package upgrade
