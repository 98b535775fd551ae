import "./styles/app.css";
import { mount } from "svelte";
import App from "./App.svelte";
import { createBackend } from "./lib/create-backend";
import { AppStore } from "./lib/store.svelte";
import { installPerfHooks } from "./lib/perf.svelte";
import { warmUpTranscript } from "./components/warm-up";

async function start() {
  const backend = await createBackend();
  const store = new AppStore();
  backend.onEvents((events) => store.enqueue(events));
  installPerfHooks(store);
  mount(App, { target: document.getElementById("app")!, props: { backend, store } });
  try {
    store.init(await backend.invoke("app_state"));
  } catch (e) {
    console.error("app_state failed", e);
  }
  // Right after the first paint (not before it): the first reply then renders without first-use costs.
  requestAnimationFrame(() => setTimeout(() => warmUpTranscript(store), 0));
  // The mock agent announces its commands once the window is listening.
  (backend as { start?: () => void }).start?.();
  // Demo/screenshot aid (mock only): `?mock&prompt=hello&prompt=/configure` sends prompts in turn.
  if (!("__TAURI_INTERNALS__" in window) || new URLSearchParams(location.search).has("mock")) {
    const prompts = new URLSearchParams(location.search).getAll("prompt");
    let delay = 300;
    for (const p of prompts) {
      setTimeout(() => void backend.invoke("send_prompt", { sessionId: store.activeSessionId ?? "", text: p }), delay);
      delay += 2500;
    }
  }
}

void start();
