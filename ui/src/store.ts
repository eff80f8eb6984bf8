// A minimal observable store and its Preact hook: the app has one state object; components
// select what they need and re-render when it changes.

import { useEffect, useRef, useState } from "preact/hooks";

export interface Store<S> {
  get(): S;
  set(update: Partial<S> | ((s: S) => Partial<S>)): void;
  subscribe(listener: () => void): () => void;
}

export function createStore<S extends object>(initial: S): Store<S> {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    set(update) {
      const patch = typeof update === "function" ? update(state) : update;
      state = { ...state, ...patch };
      for (const l of [...listeners]) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The selected part of the state; the component re-renders when it changes (by identity). */
export function useStore<S extends object, T>(store: Store<S>, select: (s: S) => T): T {
  const latest = useRef(select);
  latest.current = select;
  const [, force] = useState(0);
  const value = select(store.get());
  const shown = useRef(value);
  shown.current = value;
  useEffect(() => {
    const check = () => {
      if (!Object.is(latest.current(store.get()), shown.current)) force((n) => n + 1);
    };
    const unsubscribe = store.subscribe(check);
    // The state may have changed between the render and this effect.
    check();
    return unsubscribe;
  }, [store]);
  return value;
}
