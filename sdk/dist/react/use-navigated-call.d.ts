// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
import { type NavigatedCall } from "../pedelec.js";
export declare function useNavigatedCall(answer: (call: NavigatedCall) => unknown): void;
