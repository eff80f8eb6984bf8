//! Printing the webview to a PDF file without a dialog: platform glue only. On Linux the
//! webview is WebKitGTK, whose print operation prints what the page's print stylesheet shows
//! (the print view the window laid out) through GTK's "Print to File" printer, or through the
//! printer the person picks in GTK's print dialog (Print…). Elsewhere there is no such operation
//! here: the window uses the system's print dialog (`window.print()`).

use std::path::Path;

use tauri::{Runtime, Webview};

/// A printed page's size and its margin on every side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Page {
    pub width_mm: f64,
    pub height_mm: f64,
    pub margin_mm: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    #[error("the webview cannot be reached: {0}")]
    Webview(#[from] tauri::Error),
    #[error("the path {0} is not one a printer can write to")]
    Path(String),
    #[error("printing failed: {0}")]
    Failed(String),
    #[error("the print operation ended without a word")]
    Gone,
    #[error("printing to a file without a dialog is not available on this platform")]
    Unsupported,
}

/// Prints the webview's page to `dest` as PDF, on `page`-sized pages; returns once the file is
/// written (WebKitGTK's `finished` signal) or printing failed.
#[cfg(target_os = "linux")]
pub async fn to_pdf<R: Runtime>(
    webview: &Webview<R>,
    dest: &Path,
    page: Page,
) -> Result<(), PrintError> {
    use gtk::{PaperSize, PrintSettings, Unit};
    use webkit2gtk::{PrintOperation, PrintOperationExt};

    let uri = url::Url::from_file_path(dest)
        .map_err(|()| PrintError::Path(dest.display().to_string()))?
        .to_string();
    let (tx, rx) = tokio::sync::oneshot::channel::<Result<(), String>>();
    webview.with_webview(move |platform| {
        let op = PrintOperation::new(&platform.inner());
        let paper = PaperSize::new_custom(
            "quire-page",
            "Quire page",
            page.width_mm,
            page.height_mm,
            Unit::Mm,
        );
        let settings = PrintSettings::new();
        settings.set_printer("Print to File");
        settings.set(gtk::PRINT_SETTINGS_OUTPUT_URI.as_str(), Some(&uri));
        settings.set(gtk::PRINT_SETTINGS_OUTPUT_FILE_FORMAT.as_str(), Some("pdf"));
        settings.set_paper_size(&paper);
        op.set_print_settings(&settings);
        op.set_page_setup(&page_setup(page));
        Ending::on(&op, tx, ());
        op.print();
    })?;
    outcome(rx).await
}

/// Print…: the system's print dialog (GTK's) over the window, on the webview's page as its
/// print stylesheet shows it, `page` offered as the page setup (the person may change it there).
/// Returns whether they printed (once the job is handed to the printer) or cancelled.
/// `window.print()` opens no dialog in this webview, so the app runs WebKitGTK's own.
#[cfg(target_os = "linux")]
pub async fn with_dialog<R: Runtime>(webview: &Webview<R>, page: Page) -> Result<bool, PrintError> {
    use gtk::prelude::{Cast, WidgetExt};
    use webkit2gtk::{PrintOperation, PrintOperationExt, PrintOperationResponse};

    let (tx, rx) = tokio::sync::oneshot::channel::<Result<bool, String>>();
    webview.with_webview(move |platform| {
        let view = platform.inner();
        let op = PrintOperation::new(&view);
        op.set_page_setup(&page_setup(page));
        let ending = Ending::on(&op, tx, true);
        let parent = view
            .toplevel()
            .and_then(|w| w.downcast::<gtk::Window>().ok());
        // Modal: returns once the person printed or cancelled (no signal follows a cancel).
        if op.run_dialog(parent.as_ref()) == PrintOperationResponse::Cancel {
            ending.answer(Ok(false));
            ending.release();
        }
    })?;
    outcome(rx).await
}

/// Where a print operation's end is told.
#[cfg(target_os = "linux")]
type Answer<T> = tokio::sync::oneshot::Sender<Result<T, String>>;

/// The end of a print operation, told once through a channel: the first word wins (`failed`
/// comes before `finished` when printing fails). The operation is kept until it finishes (or
/// its dialog is cancelled), then let go.
#[cfg(target_os = "linux")]
struct Ending<T> {
    answer: std::rc::Rc<std::cell::RefCell<Option<Answer<T>>>>,
    op: std::rc::Rc<std::cell::RefCell<Option<webkit2gtk::PrintOperation>>>,
}

#[cfg(target_os = "linux")]
impl<T: Clone + 'static> Ending<T> {
    /// Wires `op`'s `failed` and `finished` to `tx`; `done` is the answer when it finishes.
    fn on(op: &webkit2gtk::PrintOperation, tx: Answer<T>, done: T) -> Self {
        use std::cell::RefCell;
        use std::rc::Rc;

        use webkit2gtk::PrintOperationExt;

        let ending = Ending {
            answer: Rc::new(RefCell::new(Some(tx))),
            op: Rc::new(RefCell::new(Some(op.clone()))),
        };
        let on_failed = ending.share();
        op.connect_failed(move |_, error| on_failed.answer(Err(error.to_string())));
        let on_finished = ending.share();
        op.connect_finished(move |_| {
            on_finished.answer(Ok(done.clone()));
            on_finished.release();
        });
        ending
    }

    fn share(&self) -> Self {
        Ending {
            answer: std::rc::Rc::clone(&self.answer),
            op: std::rc::Rc::clone(&self.op),
        }
    }

    /// Tells the end, unless it was told already.
    fn answer(&self, result: Result<T, String>) {
        if let Some(tx) = self.answer.borrow_mut().take() {
            let _ = tx.send(result);
        }
    }

    /// Lets the operation go.
    fn release(&self) {
        self.op.borrow_mut().take();
    }
}

/// What the print operation told, as the command's answer.
#[cfg(target_os = "linux")]
async fn outcome<T>(
    rx: tokio::sync::oneshot::Receiver<Result<T, String>>,
) -> Result<T, PrintError> {
    match rx.await {
        Ok(Ok(done)) => Ok(done),
        Ok(Err(e)) => Err(PrintError::Failed(e)),
        Err(_) => Err(PrintError::Gone),
    }
}

/// GTK's page setup for `page`: its paper size and the same margin on every side.
#[cfg(target_os = "linux")]
fn page_setup(page: Page) -> gtk::PageSetup {
    use gtk::{PageSetup, PaperSize, Unit};
    let paper = PaperSize::new_custom(
        "quire-page",
        "Quire page",
        page.width_mm,
        page.height_mm,
        Unit::Mm,
    );
    let setup = PageSetup::new();
    setup.set_paper_size(&paper);
    for set in [
        PageSetup::set_top_margin,
        PageSetup::set_bottom_margin,
        PageSetup::set_left_margin,
        PageSetup::set_right_margin,
    ] {
        set(&setup, page.margin_mm, Unit::Mm);
    }
    setup
}

#[cfg(not(target_os = "linux"))]
pub async fn with_dialog<R: Runtime>(
    _webview: &Webview<R>,
    _page: Page,
) -> Result<bool, PrintError> {
    Err(PrintError::Unsupported)
}

#[cfg(not(target_os = "linux"))]
pub async fn to_pdf<R: Runtime>(
    _webview: &Webview<R>,
    _dest: &Path,
    _page: Page,
) -> Result<(), PrintError> {
    Err(PrintError::Unsupported)
}
