// The results of the tab's formulas, computed again after every change of its content (the
// edits not yet saved included), so that what depends on a changed cell follows it.

import { useEffect, useRef, useState } from "preact/hooks";
import { computeFormulas } from "../../api";
import { type Results, hasFormulas, resultsOf } from "../../lib/formulas";
import type { SheetTabData } from "./layout";

export function useFormulas(data: SheetTabData): Results | null {
  const [results, setResults] = useState<Results | null>(null);
  const asked = useRef(0);
  useEffect(() => {
    const n = ++asked.current;
    if (!hasFormulas(data)) {
      setResults(null);
      return;
    }
    // Only the answer to the newest content is taken; until it comes the last one is shown.
    computeFormulas(data).then(
      (sheets) => {
        if (n === asked.current) setResults(resultsOf(sheets));
      },
      (e: unknown) => console.warn("formulas not computed", e),
    );
  }, [data]);
  return results;
}
