// Moving focus after an action without stealing it: only when it is nowhere (the element that
// had it went away) or still inside `within`. A slow write that completes after the person
// clicked elsewhere must not pull the cursor back.

export function mayTakeFocus(within: Element | null): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || (within !== null && within.contains(active));
}
