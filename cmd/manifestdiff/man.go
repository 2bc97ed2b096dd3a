//go:build mangen

package main

import "github.com/gitops-promote/gitops-promote/cmd/internal/cli"

func init() { extraCommands = append(extraCommands, cli.ManCmd) }
