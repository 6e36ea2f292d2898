/** Worker side of the stub test "a worker calls the main thread's stubs on its handles". */

import { DispatchStubs } from "../../ffi/dispatch.ts";
import { pointerFromAddress } from "../../ffi/memory.ts";

interface Request {
  path: string | undefined;
  names: string[];
  index: number;
  handle: bigint;
}

// Typed by hand: the checker sees this file with the main-thread (window) globals.
const scope = self as unknown as {
  onmessage: (e: MessageEvent<Request>) => void;
  postMessage(message: string): void;
};

scope.onmessage = (e) => {
  const { path, names, index, handle } = e.data;
  const stubs = DispatchStubs.attach(path, names);
  try {
    stubs.bind(index, { parameters: ["pointer", "f32"], result: "void" })(pointerFromAddress(handle), 9.5);
    scope.postMessage("done");
  } catch (error) {
    scope.postMessage(`error: ${error}`);
  } finally {
    stubs.dispose();
  }
};
