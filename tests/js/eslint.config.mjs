// The browser modules' linter (scripts/js_tests.sh runs it): ES modules in the browser, eslint's recommended
// rules, and the rules that catch the mistakes a DOM front end makes (globals, shadowed names, loose equality).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      eqeqeq: ["error", "always"],
      "no-shadow": "error",
      "no-implicit-globals": "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-unused-vars": ["error", { args: "after-used" }],
    },
  },
  {
    // the loader is one expression, called with the output's key and data by present/front.py
    files: ["**/loader.js"],
    languageOptions: { sourceType: "script" },
    rules: { "no-unused-expressions": "off" },
  },
];
