//! The guarded write's decisions, made here once for every backend: the Note's reach first (a
//! Note the agent's door may not reach is missing to it, see [`Reach`]), then the idempotency
//! key (found: the first write's result again, whatever the version says now), then the version
//! (stale: a conflict), then the change applied to the Note (refused: nothing is stored, not even
//! the key), then what to commit (a new version holding the key, or, for a change that changes
//! nothing, the key alone with its result).
//!
//! A backend gathers what each step needs in its own way (SQLite from its writer's copy of the
//! Note, PostgreSQL in one statement), and commits what [`GuardedWrite::settle`] plans, in one
//! transaction. The order is the planner's: [`GuardedWrite::admit`] reads the version only when
//! the key was not found.

use quire_api::WriteResult;
use quire_model::{Applied, ApplyCtx, Note, NoteId, Version};
use sha2::{Digest, Sha256};

use crate::{Change, Result, StoreError, WriteRequest, trash};

/// Longest idempotency key, in characters.
pub const KEY_CHARS: usize = 255;

/// An idempotency key is 1 to [`KEY_CHARS`] characters; checked before anything is read.
pub fn check_key(key: Option<&str>) -> Result<()> {
    match key {
        Some("") => Err(StoreError::BadKey("must not be empty".to_owned())),
        Some(k) if k.chars().count() > KEY_CHARS => Err(StoreError::BadKey(format!(
            "longer than {KEY_CHARS} characters"
        ))),
        _ => Ok(()),
    }
}

/// What a resent request is compared with: its expected version and its change, hashed. Two
/// requests with the same key but another fingerprint are one intent sent twice differently:
/// the first result is returned, flagged with `request_differs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// SHA-256 of the expected version in decimal, a newline, and the change as JSON.
    pub fn of(req: &WriteRequest) -> Result<Fingerprint> {
        let mut hasher = Sha256::new();
        hasher.update(req.expected_version.0.to_string().as_bytes());
        hasher.update(b"\n");
        // The change's JSON goes straight into the hash: the bytes of `to_vec`, without the copy.
        serde_json::to_writer(HashWriter(&mut hasher), &req.change)
            .map_err(|e| StoreError::Backend(format!("cannot fingerprint the request: {e}")))?;
        Ok(Fingerprint(hasher.finalize().into()))
    }

    /// A fingerprint as stored in bytes; `None` if it is not one.
    pub fn from_bytes(bytes: &[u8]) -> Option<Fingerprint> {
        bytes.try_into().ok().map(Fingerprint)
    }

    /// A fingerprint as stored in hexadecimal; `None` if it is not one.
    pub fn from_hex(text: &str) -> Option<Fingerprint> {
        let mut bytes = [0; 32];
        hex::decode_to_slice(text, &mut bytes).ok()?;
        Some(Fingerprint(bytes))
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

/// Feeds what is written into a SHA-256.
struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The write found under the request's key on this Note: the fingerprint it was stored with
/// (`None`: unreadable, which counts as another request) and what the backend needs to give
/// its result back (`R`).
#[derive(Debug, Clone, PartialEq)]
pub struct FirstWrite<R> {
    pub fingerprint: Option<Fingerprint>,
    pub result: R,
}

/// What the key, then the version, decide.
#[derive(Debug, Clone, PartialEq)]
pub enum Admission<R> {
    /// The key was used before on this Note: answer with that write's result, through
    /// [`replayed`]. Nothing is written.
    Replay { first: R, request_differs: bool },
    /// The Note is no longer at the expected version: a conflict. Nothing is written.
    Stale { current_version: Version },
    /// Apply the change to the Note at the expected version ([`GuardedWrite::apply`]).
    Apply,
}

/// The key a commit stores, with the fingerprint a resend is compared with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claim<'r> {
    pub key: &'r str,
    pub fingerprint: &'r Fingerprint,
}

/// What to commit.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<'r> {
    /// The change left the Note as it was: no new version. The key is stored all the same, with
    /// `result` itself (no version holds it), so that a resend replays it.
    Unchanged {
        result: WriteResult,
        claim: Option<Claim<'r>>,
    },
    /// A new version, `result.version`, which holds the key.
    NewVersion {
        result: WriteResult,
        claim: Option<Claim<'r>>,
    },
}

impl Outcome<'_> {
    pub fn result(&self) -> &WriteResult {
        match self {
            Outcome::Unchanged { result, .. } | Outcome::NewVersion { result, .. } => result,
        }
    }
}

/// Checks the request's key and, if it has one, fingerprints the request.
fn keyed_fingerprint(req: &WriteRequest) -> Result<Option<Fingerprint>> {
    check_key(req.idempotency_key.as_deref())?;
    req.idempotency_key
        .as_ref()
        .map(|_| Fingerprint::of(req))
        .transpose()
}

/// Which Notes a write may reach: the person's door reaches every Note; the agent's only the
/// Notes approved for agents and out of the trash. A Note out of reach answers as a missing one
/// ([`StoreError::NoteNotFound`]) before its key or version is looked at, decided in the write's
/// own transaction: an approval withdrawn a moment before is never written past.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reach {
    #[default]
    AnyNote,
    AgentVisible,
}

impl Reach {
    /// Refuses a Note out of this reach: `agent_access` and `trashed` as the backend read them
    /// in the write's transaction.
    pub fn check(self, id: &NoteId, agent_access: bool, trashed: bool) -> Result<()> {
        match self {
            Reach::AgentVisible if !agent_access || trashed => {
                Err(StoreError::NoteNotFound(id.clone()))
            }
            _ => Ok(()),
        }
    }
}

/// A write request whose fingerprint is taken: by whoever sends it, before it waits for the
/// writer, so that hashing a large change does not hold the one writer every save waits for.
#[derive(Debug)]
pub struct Fingerprinted {
    req: WriteRequest,
    fingerprint: Option<Fingerprint>,
    reach: Reach,
}

impl Fingerprinted {
    /// Checks the key and fingerprints the request (if it has a key).
    pub fn new(req: WriteRequest) -> Result<Self> {
        Self::reaching(req, Reach::AnyNote)
    }

    /// As [`new`](Self::new), for a write that may reach only the Notes `reach` names.
    pub fn reaching(req: WriteRequest, reach: Reach) -> Result<Self> {
        let fingerprint = keyed_fingerprint(&req)?;
        Ok(Fingerprinted {
            req,
            fingerprint,
            reach,
        })
    }

    pub fn request(&self) -> &WriteRequest {
        &self.req
    }
}

/// One guarded write, planned step by step: [`admit`](Self::admit), [`apply`](Self::apply),
/// [`settle`](Self::settle).
#[derive(Debug)]
pub struct GuardedWrite<'r> {
    req: &'r WriteRequest,
    /// The request's key and fingerprint, if it has a key.
    key: Option<(&'r str, Fingerprint)>,
    reach: Reach,
}

impl<'r> GuardedWrite<'r> {
    /// Checks the key and fingerprints the request.
    pub fn new(req: &'r WriteRequest, reach: Reach) -> Result<Self> {
        let key = req.idempotency_key.as_deref().zip(keyed_fingerprint(req)?);
        Ok(GuardedWrite { req, key, reach })
    }

    /// The plan of a request fingerprinted already.
    pub fn of(prepared: &'r Fingerprinted) -> Self {
        let key = (prepared.req.idempotency_key.as_deref()).zip(prepared.fingerprint);
        GuardedWrite {
            req: &prepared.req,
            key,
            reach: prepared.reach,
        }
    }

    pub fn request(&self) -> &'r WriteRequest {
        self.req
    }

    /// Which Notes this write may reach: checked first, before the key ([`Reach::check`]).
    pub fn reach(&self) -> Reach {
        self.reach
    }

    /// Refuses a Note out of the write's reach ([`Reach::check`]).
    pub fn check_reach(&self, agent_access: bool, trashed: bool) -> Result<()> {
        self.reach.check(&self.req.note_id, agent_access, trashed)
    }

    /// The key to look up before anything else, and to store with the commit.
    pub fn claim(&self) -> Option<Claim<'_>> {
        self.key
            .as_ref()
            .map(|(key, fingerprint)| Claim { key, fingerprint })
    }

    /// The key, then the version: `first` is the write found under the request's key (`None`
    /// when the request has none, or nobody used it on this Note); `current` gives the Note's
    /// version, and is asked only when the key was not found.
    pub fn admit<R, E>(
        &self,
        first: Option<FirstWrite<R>>,
        current: impl FnOnce() -> std::result::Result<Version, E>,
    ) -> std::result::Result<Admission<R>, E> {
        if let (Some((_, mine)), Some(first)) = (&self.key, first) {
            return Ok(Admission::Replay {
                request_differs: first.fingerprint.as_ref() != Some(mine),
                first: first.result,
            });
        }
        let current = current()?;
        Ok(if current == self.req.expected_version {
            Admission::Apply
        } else {
            Admission::Stale {
                current_version: current,
            }
        })
    }

    /// The version a restore brings back: the backend reads it for [`apply`](Self::apply).
    pub fn restores(&self) -> Option<Version> {
        match self.req.change {
            Change::Restore { version } => Some(version),
            Change::Ops(_) | Change::Trash | Change::Undelete | Change::Revert { .. } => None,
        }
    }

    /// The change applied to `current` (the Note at the expected version); `restored` is the
    /// Note at [`restores`](Self::restores)'s version as the backend found it. A refusal (an
    /// invalid operation, a version that does not exist) names what is wrong.
    pub fn apply(&self, current: &Note, restored: Option<&Note>) -> Result<Applied> {
        match &self.req.change {
            Change::Ops(ops) => {
                let ctx = ApplyCtx {
                    now: self.req.now,
                    author: &self.req.author,
                };
                Ok(quire_model::apply(current, ops, &ctx)?)
            }
            Change::Restore { version } => match restored {
                Some(old) => Ok(quire_model::restore(current, old)),
                None => Err(StoreError::VersionNotFound {
                    note_id: self.req.note_id.clone(),
                    version: *version,
                }),
            },
            Change::Trash | Change::Undelete => Ok(trash::applied(current, &self.req.change)),
            Change::Revert { version, note } => {
                if note.id != current.id {
                    return Err(StoreError::Backend(format!(
                        "a revert of note {} sent for note {}",
                        note.id, current.id
                    )));
                }
                let mut applied = quire_model::restore(current, note);
                applied.summary = format!("reverted version {version}");
                Ok(applied)
            }
        }
    }

    /// Whether the change may be made on a Note in the trash (`trashed`) or out of it: only
    /// [`Change::Undelete`] touches a trashed Note, and only a trashed one. Asked after the key
    /// (a resend of a write made before the Note was trashed still replays) and before the
    /// version (a stale write to a trashed Note is told why it cannot be made at all).
    pub fn check_trash(&self, trashed: bool) -> Result<()> {
        trash::check(&self.req.note_id, &self.req.change, trashed)
    }

    /// What the commit sets the Note's `deleted_at` to: `Some(Some(now))` into the trash,
    /// `Some(None)` out of it, `None` left as it is.
    pub fn trash_mark(&self) -> Option<Option<quire_model::Timestamp>> {
        trash::mark(&self.req.change, self.req.now)
    }

    /// What to commit for `applied`, made on the Note at `current` (the expected version).
    pub fn settle(&self, current: Version, applied: &Applied) -> Outcome<'_> {
        let result = |version, changed_tab_ids| WriteResult {
            note_id: self.req.note_id.clone(),
            version,
            changed_tab_ids,
            outcomes: applied.outcomes.clone(),
            replayed: false,
            request_differs: false,
        };
        let claim = self.claim();
        if applied.is_noop() && self.trash_mark().is_none() {
            Outcome::Unchanged {
                result: result(current, Vec::new()),
                claim,
            }
        } else {
            Outcome::NewVersion {
                result: result(current.next(), applied.changed_tab_ids.clone()),
                claim,
            }
        }
    }
}

/// The first write's result, answered again to a resend.
pub fn replayed(mut first: WriteResult, request_differs: bool) -> WriteResult {
    first.replayed = true;
    first.request_differs = request_differs;
    first
}
