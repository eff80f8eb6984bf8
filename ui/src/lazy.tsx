// Components loaded on first use (a separate chunk: `import()`), so that the first paint does
// not wait for code the start screen does not show. CodeMirror with the Markdown language
// (which brings HTML, CSS and JavaScript grammars for code blocks) and marked are most of the
// bundle; evaluating them on start delayed the first frame.
//
// `loader` caches one load per component; `preload` starts it early (after the first paint,
// when the main thread is idle) so a Note opened later does not wait for it.

import type { ComponentType, VNode } from "preact";
import { useEffect, useState } from "preact/hooks";

export interface Loader<P> {
  /** The component once loaded, else undefined. */
  loaded(): ComponentType<P> | undefined;
  /** Loads it (once); resolves when it is ready. */
  load(): Promise<ComponentType<P>>;
}

export function loader<P>(importer: () => Promise<ComponentType<P>>): Loader<P> {
  let component: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return {
    loaded: () => component,
    load() {
      loading ??= importer().then(
        (c) => (component = c),
        (error: unknown) => {
          // A failed load may be retried by the next render.
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}

/** Renders the component once loaded; `fallback` meanwhile (and the load error, if any). */
export function lazy<P extends object>(
  from: Loader<P>,
  fallback: (error: string | null) => VNode,
): ComponentType<P> {
  return function Lazy(props: P) {
    const [, setReady] = useState(0);
    const [error, setError] = useState<string | null>(null);
    const Component = from.loaded();
    useEffect(() => {
      if (Component) return;
      let live = true;
      from.load().then(
        () => live && setReady((n) => n + 1),
        (e: unknown) => live && setError(String(e)),
      );
      return () => {
        live = false;
      };
    }, [Component]);
    return Component ? <Component {...props} /> : fallback(error);
  };
}
