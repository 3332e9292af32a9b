//! Typed arenas: `Handle<T>` is a `u32` index into an `Arena<T>`, with a source
//! [`Span`] kept in a parallel vector beside each element (naga / cranelift style).
//!
//! Invariant: `data.len() == spans.len()`; a handle is only valid for the arena
//! that produced it (the IR never mixes handles of different arenas of one type).

use std::fmt;
use std::marker::PhantomData;

/// A byte range `start..end` into the source text a module was parsed from.
/// `Span::DUMMY` (0..0) marks IR built by hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// The empty span at offset 0, for IR that has no source text.
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// An index into an [`Arena<T>`]. Copy, 4 bytes, compared by index.
pub struct Handle<T> {
    index: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// The handle of the `index`-th element (callers make sure it exists).
    pub const fn from_index(index: usize) -> Self {
        Handle {
            index: index as u32,
            marker: PhantomData,
        }
    }

    pub const fn index(self) -> usize {
        self.index as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index)
    }
}

/// A growable vector of `T` addressed by [`Handle<T>`], with one [`Span`] per element.
#[derive(Clone)]
pub struct Arena<T> {
    data: Vec<T>,
    spans: Vec<Span>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            data: Vec::new(),
            spans: Vec::new(),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Arena<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.data.iter()).finish()
    }
}

/// Arenas compare by their elements only: spans are ignored, so that a module
/// and the module reparsed from its printed text compare equal.
impl<T: PartialEq> PartialEq for Arena<T> {
    fn eq(&self, other: &Self) -> bool {
        self.data == other.data
    }
}

impl<T> Arena<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `value` and returns its handle.
    pub fn append(&mut self, value: T, span: Span) -> Handle<T> {
        let h = Handle::from_index(self.data.len());
        self.data.push(value);
        self.spans.push(span);
        h
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn get(&self, h: Handle<T>) -> Option<&T> {
        self.data.get(h.index())
    }

    pub fn get_mut(&mut self, h: Handle<T>) -> Option<&mut T> {
        self.data.get_mut(h.index())
    }

    /// The source span of an element (`Span::DUMMY` for a foreign handle).
    pub fn span(&self, h: Handle<T>) -> Span {
        self.spans.get(h.index()).copied().unwrap_or(Span::DUMMY)
    }

    pub fn set_span(&mut self, h: Handle<T>, span: Span) {
        if let Some(s) = self.spans.get_mut(h.index()) {
            *s = span;
        }
    }

    /// Elements in insertion order with their handles.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Handle<T>, &T)> + DoubleEndedIterator {
        self.data
            .iter()
            .enumerate()
            .map(|(i, v)| (Handle::from_index(i), v))
    }

    /// Elements as a slice, indexable by `handle.index()`.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }
}

impl<T> std::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    fn index(&self, h: Handle<T>) -> &T {
        &self.data[h.index()]
    }
}

impl<T> std::ops::IndexMut<Handle<T>> for Arena<T> {
    fn index_mut(&mut self, h: Handle<T>) -> &mut T {
        &mut self.data[h.index()]
    }
}
