package commands

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// interruptible runs action with a context that SIGINT or SIGTERM cancels,
// and reports the signal as an interruptedError (exit 130 or 143) whatever
// action returned as it wound down. Only commands that stop promptly on a
// cancelled context are wrapped: for any other, catching the signal would
// turn Ctrl-C into nothing at all.
func interruptible(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		ctx, cancel := context.WithCancel(c.Context)
		defer cancel()
		caught := make(chan os.Signal, 1)
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case sig := <-sigs:
				caught <- sig // before cancel, so action's return finds it
				cancel()
			case <-done:
			}
		}()
		c.Context = ctx
		err := action(c)
		select {
		case sig := <-caught:
			return &interruptedError{status: signalStatus(sig), err: err}
		default:
			return err
		}
	}
}

// signalStatus is the shell's convention, 128 + the signal's number.
func signalStatus(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return wire.ExitTerminated
	}
	return wire.ExitInterrupted
}
