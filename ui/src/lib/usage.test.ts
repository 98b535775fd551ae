import { describe, expect, it } from "vitest";
import { costAmount, usageText } from "./usage";

describe("the session's usage in the header", () => {
  it("shows a cost below one unit to its first three significant digits, others to two decimals", () => {
    expect(costAmount(0.0123)).toBe("0.0123");
    expect(costAmount(0.5)).toBe("0.50");
    expect(costAmount(0.05)).toBe("0.05");
    expect(costAmount(0.000012345)).toBe("0.0000123");
    expect(costAmount(0)).toBe("0.00");
    expect(costAmount(1.5)).toBe("1.50");
    expect(costAmount(12.345)).toBe("12.35");
    expect(costAmount(-0.0123)).toBe("-0.0123");
  });

  it("says the context's share, and the cost in its unit when there is one", () => {
    expect(usageText({ used: 4200, size: 200000, cost: { amount: 0.0123, currency: "USD" } })).toBe("2% of context · 0.0123 USD");
    expect(usageText({ used: 1200, size: 200000, cost: null })).toBe("1% of context");
    expect(usageText({ used: 5, size: 10, cost: { amount: 3, currency: "credits" } })).toBe("50% of context · 3.00 credits");
  });
});
