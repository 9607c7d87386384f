package e2e

// An SDK error nobody caught reached devtools and Playwright as the bare
// name "_PedelecSdkError", with no code or message: the value was not an
// Error, so Chromium described it by its class. Now it is a real Error,
// and what Chromium reports of an uncaught one (the description CDP gives
// devtools and Playwright's pageerror) says what went wrong, with its stack.

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestBrowserUncaughtSDKErrorSaysWhatWentWrong(t *testing.T) {
	testenv.SkipShort(t, "chromium and the real binary")
	env := newSDKEnv(t)
	var mu sync.Mutex
	var thrown []*runtime.ExceptionDetails
	if err := chromedp.Listen(env.b.ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			thrown = append(thrown, e.ExceptionDetails)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	// A rejection nobody handles, as an app that forgot a catch makes: a
	// session created from an unknown provider.
	env.b.js(t, nil, `
const { Pedelec } = window.sdk;
new Pedelec().createSession({ provider: "no-such-provider", skills: { guidance: "g", tools: [] } });
return null;`)
	var got *runtime.ExceptionDetails
	testenv.Await(t, 15*time.Second, "Chromium's report of the unhandled rejection", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, d := range thrown {
			if d.Exception != nil && strings.Contains(d.Exception.Description, "no-such-provider") {
				got = d
				return true
			}
		}
		return false
	})
	ex := got.Exception
	if ex.Subtype != "error" {
		t.Errorf("the uncaught value is %s/%s (%s), not an Error", ex.Type, ex.Subtype, ex.ClassName)
	}
	// Chromium builds the description from the Error's name and message,
	// then its stack's frames.
	if !strings.HasPrefix(ex.Description, `PedelecError: no provider "no-such-provider"`) || !strings.Contains(ex.Description, "\n    at ") {
		t.Errorf("devtools and Playwright describe it as %q; want PedelecError: its message, then its stack", ex.Description)
	}
}
