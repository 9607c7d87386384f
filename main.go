// Command pedelec lets a local AI agent call tools that a web page declares.
// See README.md; the commands live in package commands.
package main

import (
	"os"

	"github.com/kaoruisaac/pedelec/commands"
)

func main() { os.Exit(commands.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
