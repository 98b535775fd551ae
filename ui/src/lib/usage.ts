// The session's usage as the header says it: the share of the context window, and the cost.

/** An amount of a cost: two decimals, and for less than one unit as many as its first three
 *  significant digits need (an agent's cost of a short session is often a fraction of a cent:
 *  0.0123 USD is not "0.01"). Trailing zeros past the second decimal are dropped. */
export function costAmount(amount: number): string {
  if (!Number.isFinite(amount)) return String(amount);
  const size = Math.abs(amount);
  const decimals = size === 0 || size >= 1 ? 2 : Math.min(8, Math.max(2, 2 - Math.floor(Math.log10(size))));
  const fixed = amount.toFixed(decimals);
  return decimals > 2 ? fixed.replace(/(\.\d\d\d*?)0+$/, "$1") : fixed;
}

/** "3% of context · 0.0123 USD": one string, so a template cannot eat the spaces around the dot. */
export function usageText(u: { used?: number | null; size?: number | null; cost?: { amount: number; currency: string } | null }): string {
  const share = `${Math.round(((u.used ?? 0) / (u.size || 1)) * 100)}% of context`;
  return u.cost ? `${share} · ${costAmount(u.cost.amount)} ${u.cost.currency}` : share;
}
