// A deck as a PowerPoint file: pptxgenjs writes the slides `pptxSlides` describes. This module
// is loaded on first use (`import("./lib/pptx")`), so the first paint does not pay for the
// library.

import PptxGenJS from "pptxgenjs";
import type { PptxSlideSpec } from "./leave";

/** Slide size in inches (PowerPoint's 16:9 layout). */
const W = 10;
const H = 5.625;
const PAD_X = 0.7;

function body(slide: PptxGenJS.Slide, spec: PptxSlideSpec, lines: PptxSlideSpec["columns"][number], x: number, w: number) {
  if (lines.length === 0) return;
  slide.addText(
    lines.map((l) => ({ text: l.text, options: { bullet: l.bullet, breakLine: true } })),
    { x, y: 1.55, w, h: H - 2.05, fontSize: 20, color: spec.text, valign: "top", paraSpaceAfter: 6 },
  );
}

/** The file's bytes: one slide per spec, with its title, body, speaker notes and colours. */
export async function writePptx(title: string, specs: PptxSlideSpec[]): Promise<Uint8Array> {
  const pptx = new PptxGenJS();
  pptx.layout = "LAYOUT_16x9";
  pptx.title = title;
  pptx.company = "Quire";
  for (const spec of specs) {
    const slide = pptx.addSlide();
    slide.background = { color: spec.background };
    const titleBox = { x: PAD_X, w: W - 2 * PAD_X, color: spec.titleColour, bold: true, fontFace: "Arial" };
    switch (spec.layout) {
      case "title_only":
        slide.addText(spec.title, { ...titleBox, y: 0, h: H, fontSize: 40, align: "center", valign: "middle" });
        break;
      case "section":
        slide.addShape("rect", { x: PAD_X, y: 2.0, w: 1.4, h: 0.09, fill: { color: spec.accent }, line: { color: spec.accent } });
        slide.addText(spec.title, { ...titleBox, y: 2.2, h: 1.0, fontSize: 36, valign: "middle" });
        if (spec.columns[0]?.[0]) {
          slide.addText(spec.columns[0][0].text, { x: PAD_X, y: 3.2, w: W - 2 * PAD_X, h: 0.6, fontSize: 18, color: spec.text });
        }
        break;
      case "quote":
        slide.addText(spec.columns[0]?.[0]?.text ?? `“${spec.title}”`, {
          x: PAD_X,
          y: 1.0,
          w: W - 2 * PAD_X,
          h: 2.8,
          fontSize: 28,
          italic: true,
          fontFace: "Georgia",
          color: spec.text,
          valign: "middle",
        });
        if (spec.columns.length > 0 && spec.title) {
          slide.addText(`— ${spec.title}`, { x: PAD_X, y: 3.9, w: W - 2 * PAD_X, h: 0.5, fontSize: 16, color: spec.text });
        }
        break;
      case "two_column": {
        slide.addText(spec.title, { ...titleBox, y: 0.4, h: 1.0, fontSize: 30, valign: "top" });
        const colW = (W - 2 * PAD_X - 0.4) / 2;
        spec.columns.forEach((col, i) => body(slide, spec, col, PAD_X + i * (colW + 0.4), colW));
        break;
      }
      default:
        slide.addText(spec.title, { ...titleBox, y: 0.4, h: 1.0, fontSize: 30, valign: "top" });
        body(slide, spec, spec.columns[0] ?? [], PAD_X, W - 2 * PAD_X);
    }
    if (spec.notes.trim() !== "") slide.addNotes(spec.notes);
  }
  const out = await pptx.write({ outputType: "uint8array" });
  if (!(out instanceof Uint8Array)) throw new Error("pptxgenjs did not write bytes");
  return out;
}
