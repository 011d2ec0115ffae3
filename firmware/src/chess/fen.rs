//! FEN input and output.
//!
//! Parsing works on raw bytes and reports every kind of malformed or
//! impossible input as a [`FenError`]; it never panics. Output goes into a
//! caller-provided buffer. Castling rights are turned into has-moved flags on
//! the way in and read back from them on the way out, so FEN round-trips.

use super::piece::*;
use super::position::*;
use super::square::*;

/// Why a FEN string was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Fewer than the four mandatory fields, or a halfmove clock without a fullmove number.
    MissingField,
    /// More than six fields.
    TrailingData,
    /// A byte in the placement field that is no piece letter, digit or '/'.
    BadPieceChar,
    /// A rank that describes more or fewer than 8 squares.
    BadRankLength,
    /// A placement field with more or fewer than 8 ranks.
    BadRankCount,
    /// More than 16 men of one colour (the piece lists hold 16).
    TooManyPieces,
    /// More than 8 pawns of one colour.
    TooManyPawns,
    /// A side without a king.
    MissingKing,
    /// A side with more than one king.
    TooManyKings,
    /// A pawn on the first or eighth rank.
    PawnOnBackRank,
    /// Side-to-move field other than `w` or `b`.
    BadSideToMove,
    /// Unknown or repeated letter, or a right whose king or rook is not at home.
    BadCastling,
    /// Not a square, or no pawn could just have double-pushed past it.
    BadEpSquare,
    /// Halfmove clock not a number in 0..=255.
    BadHalfmoveClock,
    /// Fullmove number not a number in 1..=65535.
    BadFullmoveNumber,
    /// The side that just moved is in check.
    OpponentInCheck,
}

/// Longest FEN [`Position::write_fen`] can produce.
pub const FEN_MAX_LEN: usize = 92;

/// Buffer given to [`Position::write_fen`] was too short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferTooSmall;

crate::progmem! {
    /// Kind of each man on the first rank of the initial position, a..h.
    static HOME_RANK: [u8; 8] = [ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK];
    /// Order in which men are entered in the piece lists (king must be first).
    static LIST_ORDER: [u8; 6] = [KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN];
}

/// Parses a decimal number without sign of at most six digits; `u32::MAX`
/// (above any bound the callers test) for anything else. (An `Option`
/// came back through memory.)
fn parse_number(field: &[u8]) -> u32 {
    if field.len() > 6 {
        return u32::MAX;
    }
    crate::decimal::parse_u32(field).unwrap_or(u32::MAX)
}

/// True if the man on `sq` stands where it stood in the initial position
/// and counts as unmoved. Kings and rooks never do here: the castling
/// field decides for them.
fn on_home_square(byte: u8, sq: Square) -> bool {
    let kind = kind_of(byte);
    if kind == KING || kind == ROOK {
        return false;
    }
    let (home_rank, pawn_rank) = match color_of(byte) {
        Color::White => (0, 1),
        Color::Black => (7, 6),
    };
    if kind == PAWN {
        rank_of(sq) == pawn_rank
    } else {
        rank_of(sq) == home_rank && HOME_RANK.get(file_of(sq) as usize) == kind
    }
}

impl Position {
    /// Parses a FEN string; see [`Position::set_fen`].
    pub fn from_fen(fen: &[u8]) -> Result<Position, FenError> {
        let mut p = Position::empty();
        p.set_fen(fen)?;
        Ok(p)
    }

    /// Sets up the position from a FEN string (4 fields, or 6 with counters)
    /// and clears the game history. On error the board is left empty.
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub fn set_fen(&mut self, fen: &[u8]) -> Result<(), FenError> {
        let r = self.parse_fen(fen);
        if r.is_err() {
            self.clear();
        }
        r
    }

    fn parse_fen(&mut self, fen: &[u8]) -> Result<(), FenError> {
        let mut fields: [&[u8]; 6] = [&[]; 6];
        let mut n = 0;
        let mut rest = fen;
        loop {
            let start = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(rest.len());
            rest = &rest[start..];
            if rest.is_empty() {
                break;
            }
            let len = rest.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(rest.len());
            if n == 6 {
                return Err(FenError::TrailingData);
            }
            let (f, tail) = rest.split_at(len);
            fields[n] = f;
            rest = tail;
            n += 1;
        }
        if n < 4 || n == 5 {
            return Err(FenError::MissingField);
        }

        self.clear();
        self.parse_placement(fields[0])?;

        self.side = match fields[1] {
            b"w" => Color::White,
            b"b" => Color::Black,
            _ => return Err(FenError::BadSideToMove),
        };

        self.parse_castling(fields[2])?;
        self.ep = self.parse_ep(fields[3])?;

        if n == 6 {
            let halfmove = parse_number(fields[4]);
            if halfmove > 255 {
                return Err(FenError::BadHalfmoveClock);
            }
            self.halfmove = halfmove as u8;
            let fullmove = parse_number(fields[5]);
            if fullmove == 0 || fullmove > 65535 {
                return Err(FenError::BadFullmoveNumber);
            }
            self.fullmove = fullmove as u16;
        } else {
            self.halfmove = 0;
            self.fullmove = 1;
        }

        let them = self.side.other();
        if self.is_square_attacked(self.king_square(them), self.side) {
            return Err(FenError::OpponentInCheck);
        }
        self.hash = self.compute_hash();
        Ok(())
    }

    /// Fills board and piece lists from the first FEN field.
    fn parse_placement(&mut self, field: &[u8]) -> Result<(), FenError> {
        let mut rank: u8 = 7;
        let mut file: u8 = 0;
        let mut ranks_done = 0u8;
        for &b in field {
            match b {
                b'/' => {
                    if file != 8 {
                        return Err(FenError::BadRankLength);
                    }
                    if rank == 0 {
                        return Err(FenError::BadRankCount);
                    }
                    ranks_done += 1;
                    rank -= 1;
                    file = 0;
                }
                b'1'..=b'8' => {
                    file += b - b'0';
                    if file > 8 {
                        return Err(FenError::BadRankLength);
                    }
                }
                _ => {
                    let code = piece_from_char(b).ok_or(FenError::BadPieceChar)?;
                    if file >= 8 {
                        return Err(FenError::BadRankLength);
                    }
                    if kind_of(code) == PAWN && (rank == 0 || rank == 7) {
                        return Err(FenError::PawnOnBackRank);
                    }
                    let sq = square(file, rank) & 0x77;
                    self.board[sq as usize] = if on_home_square(code, sq) {
                        code
                    } else {
                        code | MOVED
                    };
                    file += 1;
                }
            }
        }
        if file != 8 {
            return Err(FenError::BadRankLength);
        }
        if ranks_done != 7 {
            return Err(FenError::BadRankCount);
        }

        for color in [Color::White, Color::Black] {
            let mut next_slot = 1u8;
            let mut pawns = 0u8;
            for k in 0..6u8 {
                let kind = LIST_ORDER.get(k as usize);
                if kind == PAWN {
                    // Pawns are listed last: the officers end here.
                    self.officer_end[color.index()] = next_slot;
                }
                let code = make_piece(color, kind);
                for i in 0..64 {
                    let sq = from_index64(i);
                    if self.board[sq as usize] & CODE_MASK != code {
                        continue;
                    }
                    let slot = if kind == KING {
                        if self.king_square(color) != NO_SQUARE {
                            return Err(FenError::TooManyKings);
                        }
                        0
                    } else {
                        if next_slot == 16 {
                            return Err(FenError::TooManyPieces);
                        }
                        next_slot += 1;
                        next_slot - 1
                    };
                    if kind == PAWN {
                        pawns += 1;
                        if pawns > 8 {
                            return Err(FenError::TooManyPawns);
                        }
                        self.toggle_pawn(color, sq);
                    }
                    *self.list_at_mut(color, slot) = sq;
                    self.board[sq as usize + 8] = slot;
                }
            }
            if self.king_square(color) == NO_SQUARE {
                return Err(FenError::MissingKing);
            }
        }
        Ok(())
    }

    /// Marks king and rooks as unmoved exactly where the castling field grants a right.
    fn parse_castling(&mut self, field: &[u8]) -> Result<(), FenError> {
        // Kings and rooks were placed as moved ([`on_home_square`]): only
        // a castling right makes them unmoved.
        if field == b"-" {
            return Ok(());
        }
        let mut seen = 0u8;
        for &b in field {
            let (bit, king_sq, rook_sq, color) = match b {
                b'K' => (WHITE_KINGSIDE, E1, H1, Color::White),
                b'Q' => (WHITE_QUEENSIDE, E1, A1, Color::White),
                b'k' => (BLACK_KINGSIDE, E8, H8, Color::Black),
                b'q' => (BLACK_QUEENSIDE, E8, A8, Color::Black),
                _ => return Err(FenError::BadCastling),
            };
            if seen & bit != 0 {
                return Err(FenError::BadCastling);
            }
            seen |= bit;
            let king = self.board[king_sq as usize] & CODE_MASK;
            let rook = self.board[rook_sq as usize] & CODE_MASK;
            if king != make_piece(color, KING) || rook != make_piece(color, ROOK) {
                return Err(FenError::BadCastling);
            }
            self.board[king_sq as usize] = king;
            self.board[rook_sq as usize] = rook;
        }
        if field.is_empty() {
            return Err(FenError::BadCastling);
        }
        Ok(())
    }

    /// Validates the en-passant field against the board and side to move.
    fn parse_ep(&self, field: &[u8]) -> Result<Square, FenError> {
        if field == b"-" {
            return Ok(NO_SQUARE);
        }
        let sq = match field {
            [f, r] => parse_square(*f, *r).ok_or(FenError::BadEpSquare)?,
            _ => return Err(FenError::BadEpSquare),
        };
        // The pawn that double-pushed passed `sq` and now stands just beyond it.
        let (rank, pawn_sq, origin) = match self.side {
            Color::White => (5, sq.wrapping_sub(16), sq.wrapping_add(16)),
            Color::Black => (2, sq.wrapping_add(16), sq.wrapping_sub(16)),
        };
        let pawn = make_piece(self.side.other(), PAWN);
        if rank_of(sq) != rank
            || self.board[(sq & 0x7F) as usize] != EMPTY
            || self.board[(origin & 0x7F) as usize] != EMPTY
            || self.board[(pawn_sq & 0x7F) as usize] & CODE_MASK != pawn
        {
            return Err(FenError::BadEpSquare);
        }
        Ok(sq)
    }

    /// Writes the FEN of the position into `buf`; returns its length.
    pub fn write_fen(&self, buf: &mut [u8]) -> Result<usize, BufferTooSmall> {
        let codes: [u8; 64] =
            core::array::from_fn(|i| self.board[from_index64(i as u8) as usize] & CODE_MASK);
        let mut w = Writer::new(buf);
        w.head(&codes, self.side == Color::White, self.castle_rights());
        if self.ep == NO_SQUARE {
            w.put(b'-');
        } else {
            let [f, r] = square_name(self.ep);
            w.put(f);
            w.put(r);
        }
        w.put(b' ');
        w.number(self.halfmove as u16);
        w.put(b' ');
        w.number(self.fullmove);
        w.finish()
    }
}

/// Appends bytes to a slice; remembers when one did not fit.
pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
    full: bool,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, len: 0, full: false }
    }

    /// Not inlined: FEN output is not speed-critical, and every call site
    /// would repeat the bounds check.
    #[inline(never)]
    pub(crate) fn put(&mut self, b: u8) {
        match self.buf.get_mut(self.len) {
            Some(slot) => {
                *slot = b;
                self.len += 1;
            }
            None => self.full = true,
        }
    }

    /// `value` in decimal, by the shared formatter.
    fn number(&mut self, value: u16) {
        let mut digits = [0u8; 10];
        let len = crate::decimal::format_u32(value as u32, &mut digits);
        for &d in digits.iter().skip(10 - len) {
            self.put(d);
        }
    }

    /// The first three fields and a space ("rnbqkbnr/.../RNBQKBNR w KQkq ")
    /// of a board given as piece codes (0 = empty) by square index (0 = a1),
    /// the side to move and the castling rights. Shared by
    /// [`Position::write_fen`] and the position editor.
    #[inline(never)]
    pub(crate) fn head(&mut self, codes: &[u8; 64], white: bool, rights: u8) {
        // One loop over the 64 squares, rank 8 first (index ^ 0x38).
        let mut gap = 0u8;
        for i in 0..64u8 {
            let c = codes[(i ^ 0x38) as usize];
            let rank_end = i & 7 == 7;
            if c == EMPTY {
                gap += 1;
            }
            if gap > 0 && (c != EMPTY || rank_end) {
                self.put(b'0' + gap);
                gap = 0;
            }
            if c != EMPTY {
                self.put(piece_char(c));
            }
            if rank_end && i != 63 {
                self.put(b'/');
            }
        }
        self.put(b' ');
        self.put(if white { b'w' } else { b'b' });
        self.put(b' ');
        if rights == 0 {
            self.put(b'-');
        }
        // The rights' bits are K, Q, k, q from bit 0 up.
        const _: () = assert!(
            WHITE_KINGSIDE == 1 && WHITE_QUEENSIDE == 2 && BLACK_KINGSIDE == 4 && BLACK_QUEENSIDE == 8
        );
        // The letters worked out, not read from an array on the stack
        // (flash): K or Q, lower case (| 0x20) for Black's two.
        let mut bits = rights;
        for i in 0..4u8 {
            if bits & 1 != 0 {
                self.put(if i & 1 == 0 { b'K' } else { b'Q' } | (i & 2) << 4);
            }
            bits >>= 1;
        }
        self.put(b' ');
    }

    /// The length written, or the error if something did not fit.
    pub(crate) fn finish(self) -> Result<usize, BufferTooSmall> {
        if self.full {
            Err(BufferTooSmall)
        } else {
            Ok(self.len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_writes_every_u16_in_decimal() {
        for n in 0..=u16::MAX {
            let mut buf = [0u8; 8];
            let mut w = Writer::new(&mut buf);
            w.number(n);
            let len = w.finish().unwrap();
            assert_eq!(&buf[..len], n.to_string().as_bytes());
        }
    }
}
