// Small pure helpers of the "Add agent" view (tested in registry.test.ts).
import type { InstallProgress, RegistryAgentView } from "./protocol";

/** Every word of the query must appear in the agent's name, id or description (any case). */
export function matchesSearch(a: Pick<RegistryAgentView, "id" | "name" | "description">, query: string): boolean {
  const hay = `${a.name}\n${a.id}\n${a.description}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => hay.includes(word));
}

/** A registry icon the backend fetched and checked (`registry_icon`), or `null`: only `data:` URLs
 *  of PNG or SVG images reach an <img>, so the page never loads a registry's URL itself. Shared by
 *  the ACP agents' and the MCP servers' registry views. */
export function checkedIcon(url: string): string | null {
  return /^data:image\/(svg\+xml|png);base64,/.test(url) ? url : null;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What the progress bar's caption says. */
export function progressText(p: InstallProgress | undefined): string {
  if (!p) return "Starting…";
  if (p.phase === "extracting") return "Unpacking…";
  if (p.total) return `Downloading ${mib(p.done)} of ${mib(p.total)} (${Math.floor((100 * p.done) / p.total)}%)`;
  return `Downloading ${mib(p.done)}`;
}
