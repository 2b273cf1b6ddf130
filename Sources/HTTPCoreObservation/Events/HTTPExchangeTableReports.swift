/// The reports an ``HTTPExchangeTable`` owes on its room, a state machine changed under the
/// table's lock: which report is due next, and whether a thread is delivering them.
///
/// Not generic, unlike the table: the table is used unspecialized from other modules, where a
/// method of a type generic over its value costs a metadata look-up per call.
@usableFromInline
struct HTTPExchangeTableReports {
    /// A report on the table's room.
    enum Report: Equatable {
        /// Full: an exchange was refused.
        case full
        /// Room again, after `afterRefusing` exchanges were refused.
        case room(afterRefusing: Int)
    }

    /// Exchanges refused since the table was made.
    private(set) var untracked = 0
    /// Exchanges refused since the table last had room: non-zero while it is full and
    /// refusing.
    private var refusedWhileFull = 0
    /// Exchanges refused in fillings that ended (the table had room again) that no notice has
    /// counted yet.
    private var refusedUncounted = 0
    /// Whether the last report claimed is a warning, its notice not claimed yet.
    private var hasWarned = false
    /// Whether a thread is delivering reports; it claims and delivers every report due until
    /// none is.
    private var isDelivering = false

    /// Counts an exchange refused; `true` when the caller is to deliver the reports due: the
    /// table just filled and no thread delivers already.
    @usableFromInline
    mutating func refuse() -> Bool {
        untracked += 1
        refusedWhileFull += 1
        // Once per time the table fills, not once per exchange.
        return refusedWhileFull == 1 && startDelivering()
    }

    /// Ends a filling as an exchange is taken; `true` when the caller is to deliver the
    /// reports due: the table was refusing and no thread delivers already.
    @usableFromInline
    mutating func endFilling() -> Bool {
        guard refusedWhileFull > 0 else { return false }
        refusedUncounted += refusedWhileFull
        refusedWhileFull = 0
        return startDelivering()
    }

    /// The next report due, claimed by the delivering thread; `nil`, and delivering ended,
    /// when none is.
    mutating func claimNext() -> Report? {
        if !hasWarned, refusedWhileFull > 0 || refusedUncounted > 0 {
            hasWarned = true
            return .full
        }
        if hasWarned, refusedUncounted > 0 {
            defer { refusedUncounted = 0 }
            hasWarned = false
            return .room(afterRefusing: refusedUncounted)
        }
        isDelivering = false
        return nil
    }

    /// Makes the caller the thread that delivers the reports due, unless one already is.
    private mutating func startDelivering() -> Bool {
        guard !isDelivering else { return false }
        isDelivering = true
        return true
    }
}
