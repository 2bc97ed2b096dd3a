// Package tagtargets holds only a test: the Makefile's targets that run
// build-tagged tests by name select every test those files define, so a
// test added behind a tag never silently stops running.
package tagtargets
