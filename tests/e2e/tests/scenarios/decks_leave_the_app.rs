//! Decks and Notes leave the app: a three-slide deck in the Ink theme exported to PDF (the
//! webview's own print, one slide a page) and to PowerPoint (pptxgenjs), and the Note to PDF,
//! each through the real save dialog; Print… of each opens the system's print dialog. The files
//! are then opened here: the PDF's pages rendered with pdftoppm (page count, the theme's
//! background in the pixels, PNGs kept as screenshots), its text read with pdftotext; the
//! PowerPoint file unzipped and its slides' XML read. The menus with the new items are shot in
//! light and dark.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use quire_e2e::{App, Harness, scenario, tid, tid_tab};
use thirtyfour::components::SelectElement;
use thirtyfour::prelude::*;

/// `quire_app::commands::EXPORT_PDF_DIALOG_TITLE`, `EXPORT_PPTX_DIALOG_TITLE`.
const PDF_TITLE: &str = "Export PDF";
const PPTX_TITLE: &str = "Export PowerPoint";
/// GTK's print dialog, which WebKitGTK opens for `window.print()`.
const PRINT_TITLE: &str = "^Print$";

const SLIDES: [(&str, &str, &str); 3] = [
    ("Why Lisbon", "- Light\n- Food", "Start with the light"),
    ("The plan", "- Three days\n- Two museums", "Keep it short"),
    ("Questions", "Anything else?", "Thank everyone"),
];

/// Whether the focus is in an empty slide title (a slide just added).
const NEW_TITLE_FOCUSED: &str = "const e = document.activeElement; \
     return e?.dataset?.testid === 'slide-title' && e.value === '';";

/// Ink's background, `#14161c` (ui/src/style.css `.theme-ink`).
const INK: [u8; 3] = [0x14, 0x16, 0x1c];

fn run(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("run {cmd:?} (poppler-utils installed?)"))?;
    ensure!(
        out.status.success(),
        "{cmd:?}: {} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The PDF's page count once the file is whole (pdfinfo reads it), polled while it is written.
async fn pdf_pages(path: &Path) -> Result<u32> {
    let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
    loop {
        if path.exists()
            && let Ok(info) = run(Command::new("pdfinfo").arg(path))
        {
            let pages = info
                .lines()
                .find_map(|l| l.strip_prefix("Pages:"))
                .context("pdfinfo: no Pages line")?;
            return Ok(pages.trim().parse()?);
        }
        ensure!(
            Instant::now() < deadline,
            "no whole PDF at {}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The RGB of pixel (x, y) of a binary PPM (`P6`, as pdftoppm writes it).
fn ppm_pixel(ppm: &[u8], x: usize, y: usize) -> Result<[u8; 3]> {
    // Header: "P6\n<w> <h>\n<max>\n" (pdftoppm writes no comments).
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while ppm.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let start = at;
        while ppm.get(at).is_some_and(|b| !b.is_ascii_whitespace()) {
            at += 1;
        }
        fields.push(std::str::from_utf8(&ppm[start..at])?.to_owned());
    }
    ensure!(fields[0] == "P6", "not a P6 PPM");
    let width: usize = fields[1].parse()?;
    let data = &ppm[at + 1..];
    let i = 3 * (y * width + x);
    Ok([data[i], data[i + 1], data[i + 2]])
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 6)
}

/// Waits for a file the app writes in one go to be there and readable as a zip.
async fn read_zip(path: &Path) -> Result<zip::ZipArchive<std::fs::File>> {
    let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
    loop {
        if let Ok(file) = std::fs::File::open(path)
            && let Ok(archive) = zip::ZipArchive::new(file)
        {
            return Ok(archive);
        }
        ensure!(
            Instant::now() < deadline,
            "no whole PPTX at {}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn entry(archive: &mut zip::ZipArchive<std::fs::File>, name: &str) -> Result<String> {
    let mut text = String::new();
    archive
        .by_name(name)
        .with_context(|| format!("{name} in the PPTX"))?
        .read_to_string(&mut text)?;
    Ok(text)
}

/// The archive's XML entries whose names start with `prefix`.
fn names(archive: &zip::ZipArchive<std::fs::File>, prefix: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for name in archive.file_names() {
        let name = name?;
        if name.starts_with(prefix) && name.ends_with(".xml") {
            out.push(name.into_owned());
        }
    }
    Ok(out)
}

async fn choose_theme(app: &App, theme: &str) -> Result<()> {
    app.click("settings-open").await?;
    app.testid("settings").await?;
    app.click(&format!("settings-theme-{theme}")).await?;
    app.click_by(&By::Css("[data-testid=\"notes-item\"]")).await
}

/// The deck's menu and the Note's menu, open, in the app's theme now.
async fn menu_shots(app: &App, slides_tab: &str, theme: &str) -> Result<()> {
    app.click_by(&By::Css(format!(
        "[data-testid=\"tab\"][data-tab-id=\"{slides_tab}\"] a"
    )))
    .await?;
    app.wait_for(&tid_tab("editor-slides", slides_tab)).await?;
    app.click("deck-menu").await?;
    app.wait_for(&tid("leave-deck-export-pptx")).await?;
    quire_e2e::screenshot(&app.driver, &format!("leave-app-{theme}-deck-menu")).await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Escape)
        .await?;
    app.click("note-menu").await?;
    app.wait_for(&tid("leave-note-export-pdf")).await?;
    quire_e2e::screenshot(&app.driver, &format!("leave-app-{theme}-note-menu")).await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Escape)
        .await?;
    Ok(())
}

#[tokio::test]
async fn decks_and_notes_leave_the_app_as_pdf_and_pptx() -> Result<()> {
    let harness = Harness::start()?;
    let dir = tempfile::Builder::new()
        .prefix("quire-e2e-leave-")
        .tempdir()?;
    let note_pdf = dir.path().join("note.pdf");
    let deck_pdf = dir.path().join("deck.pdf");
    let deck_pptx = dir.path().join("deck.pptx");
    let out = quire_e2e::output_dir()?;

    scenario(&harness, "leave-app", async |app: &App| {
        let note = app.new_note("Spring trip").await?;
        app.type_markdown("# Lisbon in spring\n\nThree days of light and *pasteis de nata*.")
            .await?;
        app.wait_saved(2).await?;

        // The Note as PDF: at least a page, its text there.
        app.menu("note-menu", "leave-note-export-pdf").await?;
        harness.answer_save_dialog(PDF_TITLE, &note_pdf).await?;
        let pages = pdf_pages(&note_pdf).await?;
        ensure!(pages >= 1, "the Note's PDF has {pages} pages");
        let text = run(Command::new("pdftotext").arg(&note_pdf).arg("-"))?;
        ensure!(
            text.contains("Lisbon in spring") && text.contains("Three days of light"),
            "the Note's text in its PDF: {text:?}"
        );
        ensure!(
            !text.contains("Delete Note"),
            "no app chrome in the PDF: {text:?}"
        );

        // A deck of three slides in the Ink theme.
        app.menu("tab-add", "tab-add-slides").await?;
        let editor = app.wait_for(&tid("editor-slides")).await?;
        let slides_tab = editor.attr("data-tab-id").await?.context("data-tab-id")?;
        for (i, (title, body, notes)) in SLIDES.iter().enumerate() {
            if i > 0 || app.driver.find_all(tid("slide-item")).await?.is_empty() {
                app.click("slide-add").await?;
                // The new slide's title takes the focus on the next frame: type once it has,
                // as a person would, or the keys land in two fields.
                let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
                while app
                    .driver
                    .execute(NEW_TITLE_FOCUSED, vec![])
                    .await?
                    .json()
                    .as_bool()
                    != Some(true)
                {
                    ensure!(
                        Instant::now() < deadline,
                        "the new slide's title never took the focus"
                    );
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
            app.type_into(&tid("slide-title"), title).await?;
            app.type_into(&tid("slide-body"), body).await?;
            app.type_into(&tid("slide-notes"), notes).await?;
        }
        let select = SelectElement::new(&app.testid("slide-theme").await?).await?;
        select.select_by_value("ink").await?;
        let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
        loop {
            let deck = app.tab_data(&note, &slides_tab).await?;
            let titles: Vec<&str> = deck["slides"].as_array().map_or(vec![], |s| {
                s.iter().filter_map(|s| s["title"].as_str()).collect()
            });
            if deck["theme"] == "ink" && titles == SLIDES.map(|s| s.0) {
                break;
            }
            ensure!(
                Instant::now() < deadline,
                "the deck never had the three slides: {deck}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        // The deck as PDF: one page a slide, Ink's background on each.
        app.menu("deck-menu", "leave-deck-export-pdf").await?;
        harness.answer_save_dialog(PDF_TITLE, &deck_pdf).await?;
        let pages = pdf_pages(&deck_pdf).await?;
        ensure!(
            pages == 3,
            "the deck's PDF has {pages} pages, not one per slide"
        );
        let text = run(Command::new("pdftotext")
            .arg("-layout")
            .arg(&deck_pdf)
            .arg("-"))?;
        for (title, ..) in SLIDES {
            ensure!(
                text.contains(title),
                "{title:?} in the deck's PDF: {text:?}"
            );
        }
        run(Command::new("pdftoppm")
            .args(["-png", "-r", "48"])
            .arg(&deck_pdf)
            .arg(out.join("leave-app-deck-pdf-page")))?;
        let ppm = dir.path().join("page");
        run(Command::new("pdftoppm")
            .args(["-r", "24"])
            .arg(&deck_pdf)
            .arg(&ppm))?;
        for page in 1..=3 {
            let bytes = std::fs::read(dir.path().join(format!("page-{page}.ppm")))?;
            // Near the bottom-left corner: background, away from the text.
            let px = ppm_pixel(&bytes, 4, 100)?;
            ensure!(
                near(px, INK),
                "page {page}'s background is {px:?}, not Ink's {INK:?}"
            );
        }
        println!(
            "PDF pages as PNG: {}",
            out.join("leave-app-deck-pdf-page-1.png").display()
        );

        // The deck as PowerPoint: three slides, each with its title and speaker notes, on
        // Ink's background.
        app.menu("deck-menu", "leave-deck-export-pptx").await?;
        harness.answer_save_dialog(PPTX_TITLE, &deck_pptx).await?;
        let mut pptx = read_zip(&deck_pptx).await?;
        let slides = names(&pptx, "ppt/slides/slide")?;
        ensure!(slides.len() == 3, "three slides in the PPTX: {slides:?}");
        let notes = names(&pptx, "ppt/notesSlides/notesSlide")?;
        ensure!(
            notes.len() == 3,
            "three notes slides in the PPTX: {notes:?}"
        );
        for (i, (title, _, speaker)) in SLIDES.iter().enumerate() {
            let xml = entry(&mut pptx, &format!("ppt/slides/slide{}.xml", i + 1))?;
            ensure!(xml.contains(title), "slide {} has {title:?}: {xml}", i + 1);
            ensure!(
                xml.contains("14161C"),
                "slide {} on Ink's background: {xml}",
                i + 1
            );
            let notes_xml = entry(
                &mut pptx,
                &format!("ppt/notesSlides/notesSlide{}.xml", i + 1),
            )?;
            ensure!(
                notes_xml.contains(speaker),
                "slide {}'s notes {speaker:?}",
                i + 1
            );
        }

        // Print… opens the system's print dialog (GTK's, titled "Print") on the print view;
        // cancelled, the view goes and the editor is back.
        for (menu, item, editor) in [
            ("deck-menu", "leave-deck-print", "editor-slides"),
            ("note-menu", "leave-note-print", "editor-slides"),
        ] {
            app.menu(menu, item).await?;
            harness.cancel_dialog(PRINT_TITLE).await?;
            app.wait_gone(&tid("print-view")).await?;
            app.wait_for(&tid_tab(editor, &slides_tab)).await?;
        }

        // The menus with the new items, light then dark.
        menu_shots(app, &slides_tab, "light").await?;
        choose_theme(app, "dark").await?;
        menu_shots(app, &slides_tab, "dark").await?;
        choose_theme(app, "light").await?;
        Ok(())
    })
    .await?;
    for path in [note_pdf, deck_pdf, deck_pptx] {
        let copy: PathBuf = out.join(format!(
            "leave-app-{}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("file")
        ));
        std::fs::copy(&path, &copy)?;
    }
    if !out.join("leave-app-deck-pdf-page-3.png").exists() {
        bail!("pdftoppm wrote no PNG of page 3");
    }
    Ok(())
}
