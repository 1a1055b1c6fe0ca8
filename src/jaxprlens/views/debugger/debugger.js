/* jaxprlens debugger front end: the live widget (anywidget's render, dbglive.js) and the recorded replay stored
   in a notebook's HTML (replay, booted by main.js; dbgreplay.js), both drawing with dbgview.js. */
import { render } from "./dbglive.js";
import { replay } from "./dbgreplay.js";

export { render, replay };
