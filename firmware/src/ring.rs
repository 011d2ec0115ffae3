//! A tiny fixed-capacity FIFO for `Copy` items (key events, serial bytes).
//!
//! Indices are free-running `u8` counters masked into the array, so the
//! capacity must be a power of two no larger than 128. The ring itself is not
//! synchronised: the hardware layer wraps it in a critical section when an
//! interrupt handler and the background loop share one.

/// A FIFO of at most `N` items; `N` is a power of two in 1..=128.
pub struct Ring<T: Copy, const N: usize> {
    buf: [T; N],
    /// Total items ever pushed (mod 256).
    head: u8,
    /// Total items ever popped (mod 256).
    tail: u8,
}

impl<T: Copy, const N: usize> Ring<T, N> {
    const MASK: u8 = {
        assert!(N.is_power_of_two() && N <= 128, "ring capacity must be a power of two <= 128");
        (N - 1) as u8
    };

    /// An empty ring; `fill` only initialises the unused slots.
    pub const fn new(fill: T) -> Self {
        let _ = Self::MASK;
        Ring { buf: [fill; N], head: 0, tail: 0 }
    }

    pub const fn capacity(&self) -> usize {
        N
    }

    /// Number of items waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.head.wrapping_sub(self.tail) as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    #[inline]
    pub fn is_full(&self) -> bool {
        self.len() == N
    }

    /// Appends `item`; returns `false` (and drops it) when the ring is full.
    #[inline]
    pub fn push(&mut self, item: T) -> bool {
        if self.is_full() {
            return false;
        }
        self.buf[(self.head & Self::MASK) as usize] = item;
        self.head = self.head.wrapping_add(1);
        true
    }

    /// Removes and returns the oldest item.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        let item = self.buf[(self.tail & Self::MASK) as usize];
        self.tail = self.tail.wrapping_add(1);
        Some(item)
    }

    /// The oldest item without removing it.
    #[inline]
    pub fn peek(&self) -> Option<T> {
        if self.is_empty() {
            None
        } else {
            Some(self.buf[(self.tail & Self::MASK) as usize])
        }
    }

    /// Discards everything waiting.
    pub fn clear(&mut self) {
        self.tail = self.head;
    }
}

/// The cells of a ring of `cells` cells (the AVR's serial transmit ring,
/// `head` the next to write, `tail` the next to leave) that can be written
/// from `head` on without wrapping: up to one short of `tail` (a full
/// ring's `head` stops one short of it), or to the ring's end, one short
/// when `tail` is cell 0. 0 when the ring is full.
#[inline(always)]
pub fn free_run(head: u8, tail: u8, cells: u8) -> u8 {
    if tail > head {
        tail - 1 - head
    } else {
        cells - head - (tail == 0) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::{free_run, Ring};

    #[test]
    fn free_runs_stop_short_of_the_tail_and_at_the_end() {
        for cells in [2u8, 7, 97] {
            for head in 0..cells {
                for tail in 0..cells {
                    // Cell i may be written if `head` then moves on to a
                    // cell other than `tail`.
                    let mut n = 0;
                    while head + n < cells && (head + n + 1) % cells != tail {
                        n += 1;
                    }
                    assert_eq!(free_run(head, tail, cells), n, "{cells} cells, head {head}, tail {tail}");
                }
            }
        }
    }

    #[test]
    fn fifo_order_and_capacity() {
        let mut r: Ring<u8, 4> = Ring::new(0);
        assert!(r.is_empty());
        for i in 0..4 {
            assert!(r.push(i));
        }
        assert!(r.is_full());
        assert!(!r.push(99), "a full ring refuses new items");
        assert_eq!(r.peek(), Some(0));
        for i in 0..4 {
            assert_eq!(r.pop(), Some(i));
        }
        assert_eq!(r.pop(), None);
    }

    #[test]
    fn indices_wrap_past_255() {
        let mut r: Ring<u16, 128> = Ring::new(0);
        let mut next_in = 0u16;
        let mut next_out = 0u16;
        for round in 0..20 {
            let n = 1 + (round * 37) % 128;
            for _ in 0..n {
                if r.push(next_in) {
                    next_in += 1;
                }
            }
            assert!(r.len() <= 128);
            for _ in 0..(n / 2 + 1) {
                if let Some(v) = r.pop() {
                    assert_eq!(v, next_out);
                    next_out += 1;
                }
            }
        }
        while let Some(v) = r.pop() {
            assert_eq!(v, next_out);
            next_out += 1;
        }
        assert_eq!(next_in, next_out);
        assert!(next_in > 600);
    }

    #[test]
    fn clear_empties() {
        let mut r: Ring<u8, 8> = Ring::new(0);
        r.push(1);
        r.push(2);
        r.clear();
        assert!(r.is_empty());
        assert!(r.push(3));
        assert_eq!(r.pop(), Some(3));
    }
}
