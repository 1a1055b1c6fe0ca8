/* Asking the kernel: anywidget's commands.  A widget's Python side answers a named command
   (anywidget.experimental.command); the page asks with anywidget's invoke (the render's experimental.invoke),
   whose promise gives the answer to the one ask it answers.  A front end whose invoke refuses (marimo's throws
   "not supported") gets the same messages sent here over the widget's channel, which its kernel answers the
   same way.  No time limit (anywidget's default is 3 s): a Continue or a search may take longer; the asks still
   waiting when the view goes are dropped. */
const ASK = "anywidget-command", ANSWER = "anywidget-command-response";
let made = 0;

export function asker(model, experimental) {
  const waiting = new Set();          // each ask's own AbortController, until it is answered
  let invoke = experimental && typeof experimental.invoke === "function" ? experimental.invoke : null;
  const ask = async (name, msg) => {
    const one = new AbortController();
    waiting.add(one);
    try {
      if (invoke) {
        try {
          return (await invoke(name, msg, { signal: one.signal }))[0];
        } catch (err) {
          if (one.signal.aborted) throw err;
          invoke = null;              // this front end's invoke refuses: the same messages, sent here
        }
      }
      return await sent(model, name, msg, one.signal);
    } finally {
      waiting.delete(one);
    }
  };
  ask.close = () => { waiting.forEach((one) => one.abort()); waiting.clear(); };
  return ask;
}

function sent(model, name, msg, signal) {
  const id = "jl-" + Math.random().toString(36).slice(2) + "-" + (++made);
  return new Promise((resolve, reject) => {
    const done = (m) => {
      if (!m || m.id !== id || m.kind !== ANSWER) return;
      model.off("msg:custom", done);
      resolve(m.response);
    };
    signal.addEventListener("abort", () => { model.off("msg:custom", done); reject(signal.reason); }, { once: true });
    model.on("msg:custom", done);
    model.send({ id: id, kind: ASK, name: name, msg: msg });
  });
}

/* A message on the widget's channel as this page draws it: an answer to any ask (this view's or another's: a page
   may show one debugger twice, and a shared notebook's pages all hear one kernel) is its response. */
export function answered(msg) {
  return msg && msg.kind === ANSWER ? msg.response : msg;
}
