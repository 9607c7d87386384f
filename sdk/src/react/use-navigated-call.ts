// useNavigatedCall(answer): this page's answer to the calls that were
// running when the previous page navigated away (a tool that submitted a
// form or followed a link), for a session that follows the page. The
// answer's value is the call's result; undefined leaves the default
// {navigated: true, url, ...}. The latest answer is used; none within a
// second of the call arriving gives the default.

import { useEffect, useRef } from "react";
import { onNavigatedCall, type NavigatedCall } from "@kaoruisaac/pedelec";
import { useSession } from "./provider.js";

export function useNavigatedCall(answer: (call: NavigatedCall) => unknown): void {
  const { session } = useSession();
  const ref = useRef(answer);
  ref.current = answer;
  useEffect(() => {
    if (!session) return;
    return onNavigatedCall(session, (call) => ref.current(call));
  }, [session]);
}
