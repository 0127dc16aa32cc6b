// Stock levels per warehouse, and the rule that decides when to restock.
export const RESTOCK_THRESHOLD = 20;

export const stock = {
  A: { widgets: 120, gadgets: 45 },
  B: { widgets: 80, gadgets: 15 },
};

export function needsRestock(warehouse, item) {
  return (stock[warehouse]?.[item] ?? 0) < RESTOCK_THRESHOLD;
}
