import GRDB

/// The library's tables, as migrations. Times and lengths are frames at the library's rate.
enum LibrarySchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: routines, parts, moves, loops, settings, resume") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("beatGrid") { db in
            try db.execute(sql: beatGrid)
        }
        migrator.registerMigration("partSpeed") { db in
            try db.execute(sql: partSpeed)
        }
        migrator.registerMigration("layers") { db in
            try db.execute(sql: layers)
        }
        migrator.registerMigration("shortNames") { db in
            try db.execute(sql: shortNames)
        }
        migrator.registerMigration("madeOnTheBox") { db in
            try db.execute(sql: madeOnTheBox)
        }
        migrator.registerMigration("practice") { db in
            try db.execute(sql: practice)
        }
        migrator.registerMigration("fadeOut") { db in
            try db.execute(sql: fadeOut)
        }
        migrator.registerMigration("tappedTempo") { db in
            try db.execute(sql: tappedTempo)
        }
        migrator.registerMigration("classSets") { db in
            try db.execute(sql: classSets)
        }
        return migrator
    }

    /// A part's beat grid as imported (from the manifest or detected), and the "1" the
    /// performer set on the device. `beatFrames` is frames per beat at the library's rate,
    /// stored as the double it is (the routine's digest is over it).
    static let beatGrid = """
        ALTER TABLE part ADD COLUMN beatFrames REAL CHECK (beatFrames IS NULL OR beatFrames > 0);
        ALTER TABLE part ADD COLUMN one INTEGER;
        ALTER TABLE part ADD COLUMN gridOrigin TEXT
            CHECK (gridOrigin IS NULL OR gridOrigin IN ('manifest', 'detected'));
        CREATE TABLE savedOne (
            partId INTEGER PRIMARY KEY REFERENCES part(id) ON DELETE CASCADE,
            one INTEGER NOT NULL
        );
        """

    /// A part's lead-in before its loop ("2 beats", `LeadIn`) and speed ramp ("70,5,1,100",
    /// `SpeedRamp`): the manifest's at import, replaced by what the menu sets (NULL: none).
    /// Not in the routine's digest, as the speed is not.
    static let practice = """
        ALTER TABLE part ADD COLUMN leadIn TEXT;
        ALTER TABLE part ADD COLUMN ramp TEXT;
        ALTER TABLE boxPart ADD COLUMN leadIn TEXT;
        ALTER TABLE boxPart ADD COLUMN ramp TEXT;
        """

    /// The manifest's `short` of a routine and of a part: the name a display shows when it
    /// cannot show the title (kanji on a katakana ROM). NULL when the manifest gave none.
    static let shortNames = """
        ALTER TABLE routine ADD COLUMN short TEXT;
        ALTER TABLE part ADD COLUMN short TEXT;
        """

    /// A part's practice speed (percent; no row = 100): the manifest's `speed` (`learned` 0)
    /// or one set on the device (`learned` 1), which a re-import that keeps the part keeps,
    /// as it keeps a loop learned on the device.
    static let partSpeed = """
        CREATE TABLE partSpeed (
            partId INTEGER PRIMARY KEY REFERENCES part(id) ON DELETE CASCADE,
            speed INTEGER NOT NULL CHECK (speed BETWEEN 50 AND 150),
            learned INTEGER NOT NULL DEFAULT 1
        );
        """

    /// The teacher's layer beside the stick's: whose count-in a routine with its own uses
    /// (NULL: the routine's), and the speed the stick gave each part (NULL: 100 %), kept apart
    /// from `partSpeed`, which a speed set on the device replaces, so the stick's can come back.
    static let layers = """
        ALTER TABLE routine ADD COLUMN countdownChoice TEXT
            CHECK (countdownChoice IS NULL OR countdownChoice IN ('routine', 'mine'));
        ALTER TABLE part ADD COLUMN stickSpeed INTEGER CHECK (stickSpeed IS NULL OR stickSpeed BETWEEN 50 AND 150);
        UPDATE part SET stickSpeed = (SELECT speed FROM partSpeed WHERE partSpeed.partId = part.id AND learned = 0);
        """

    /// What is made on the box, kept as the teacher's layer apart from the stick's rows:
    /// a routine's parts as the box has them (`boxPart`, with their moves and named loops),
    /// which play in place of the stick's parts while there are any; the named loops the stick
    /// gave a part (`partLoop`); and where the performer left off in a part of the box's.
    /// A routine made on the box ("New routine") has the stick's tables to itself, with an
    /// empty `sourcePath`.
    static let madeOnTheBox = """
        CREATE TABLE partLoop (
            partId INTEGER NOT NULL REFERENCES part(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            a INTEGER NOT NULL CHECK (a >= 0),
            b INTEGER NOT NULL CHECK (b > a),
            PRIMARY KEY (partId, position)
        );
        CREATE TABLE boxPart (
            id INTEGER PRIMARY KEY,
            routineId INTEGER NOT NULL REFERENCES routine(id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            title TEXT NOT NULL,
            short TEXT,
            mediaHash TEXT NOT NULL REFERENCES media(hash),
            start INTEGER NOT NULL CHECK (start >= 0),
            length INTEGER NOT NULL CHECK (length > 0),
            isCut BOOLEAN NOT NULL,
            -- The stick's loop, in the piece it fell in.
            stickA INTEGER,
            stickB INTEGER,
            -- The loop in force when it is not the stick's (loopSet 1; NULLs: cleared on the box).
            loopSet BOOLEAN NOT NULL DEFAULT 0,
            loopA INTEGER,
            loopB INTEGER,
            beatFrames REAL CHECK (beatFrames IS NULL OR beatFrames > 0),
            one INTEGER,
            gridOrigin TEXT CHECK (gridOrigin IS NULL OR gridOrigin IN ('manifest', 'detected', 'performer')),
            speed INTEGER NOT NULL DEFAULT 100 CHECK (speed BETWEEN 50 AND 150),
            CHECK ((stickA IS NULL) = (stickB IS NULL) AND (stickA IS NULL OR (stickA >= 0 AND stickB > stickA))),
            CHECK ((loopA IS NULL) = (loopB IS NULL) AND (loopA IS NULL OR (loopA >= 0 AND loopB > loopA))),
            UNIQUE (routineId, position)
        );
        CREATE INDEX boxPartByMedia ON boxPart(mediaHash);
        CREATE TABLE boxMove (
            boxPartId INTEGER NOT NULL REFERENCES boxPart(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            type TEXT NOT NULL,
            name TEXT NOT NULL,
            note TEXT NOT NULL,
            cue INTEGER CHECK (cue IS NULL OR cue >= 0),
            PRIMARY KEY (boxPartId, position)
        );
        CREATE TABLE boxLoop (
            boxPartId INTEGER NOT NULL REFERENCES boxPart(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            a INTEGER NOT NULL CHECK (a >= 0),
            b INTEGER NOT NULL CHECK (b > a),
            PRIMARY KEY (boxPartId, position)
        );
        ALTER TABLE resume ADD COLUMN boxPartId INTEGER REFERENCES boxPart(id) ON DELETE SET NULL;
        """

    /// The fade a part ends with (the manifest's `fade_out`), in frames; 0: none.
    static let fadeOut = """
        ALTER TABLE part ADD COLUMN fadeOut INTEGER NOT NULL DEFAULT 0 CHECK (fadeOut >= 0);
        ALTER TABLE boxPart ADD COLUMN fadeOut INTEGER NOT NULL DEFAULT 0 CHECK (fadeOut >= 0);
        """

    /// A tempo tapped on the device (*Tap tempo*) with its "1": `savedOne` then keeps the beat
    /// too, and gives the part a grid whether or not it was imported with one (NULL: only the
    /// "1" was moved on the imported grid). A box part keeps a tapped grid in its own columns,
    /// as `performer` (their check predates tapping).
    static let tappedTempo = """
        ALTER TABLE savedOne ADD COLUMN beatFrames REAL CHECK (beatFrames IS NULL OR beatFrames > 0);
        """

    /// Class sets: a stick's class.toml's (`fromStick` 1, replaced by the next stick's) and those
    /// made on the box. A track names its routine by title (unique) and, for one part, its index.
    static let classSets = """
        CREATE TABLE classSet (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            gap INTEGER NOT NULL CHECK (gap BETWEEN 0 AND 120),
            announce BOOLEAN NOT NULL,
            fromStick BOOLEAN NOT NULL
        );
        CREATE TABLE classTrack (
            classSetId INTEGER NOT NULL REFERENCES classSet(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            routine TEXT NOT NULL,
            part INTEGER CHECK (part IS NULL OR part >= 0),
            PRIMARY KEY (classSetId, position)
        );
        """

    static let v1 = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        -- One decoded source: <hash>.pcm in the media folder (see MediaKey), `frames` stereo frames.
        CREATE TABLE media (
            hash TEXT PRIMARY KEY CHECK (length(hash) = 64),
            frames INTEGER NOT NULL CHECK (frames > 0)
        );

        CREATE TABLE routine (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL UNIQUE,
            subtitle TEXT NOT NULL,
            countdown INTEGER,
            -- SHA-256 of the routine as imported (see RoutineDigest): same digest, same content.
            digest TEXT NOT NULL,
            sourcePath TEXT NOT NULL
        );

        CREATE TABLE part (
            id INTEGER PRIMARY KEY,
            routineId INTEGER NOT NULL REFERENCES routine(id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            title TEXT NOT NULL,
            mediaHash TEXT NOT NULL REFERENCES media(hash),
            start INTEGER NOT NULL CHECK (start >= 0),
            length INTEGER NOT NULL CHECK (length > 0),
            isCut BOOLEAN NOT NULL,
            -- The loop the manifest gave, part-relative.
            loopA INTEGER,
            loopB INTEGER,
            CHECK ((loopA IS NULL) = (loopB IS NULL)),
            CHECK (loopA IS NULL OR (loopA >= 0 AND loopB > loopA AND loopB <= length)),
            UNIQUE (routineId, position)
        );
        CREATE INDEX partByMedia ON part(mediaHash);

        CREATE TABLE moveType (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);

        CREATE TABLE move (
            id INTEGER PRIMARY KEY,
            partId INTEGER NOT NULL REFERENCES part(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            moveTypeId INTEGER NOT NULL REFERENCES moveType(id),
            name TEXT NOT NULL,
            note TEXT NOT NULL,
            cue INTEGER CHECK (cue IS NULL OR cue >= 0),
            UNIQUE (partId, position)
        );

        -- An A–B loop learned on the device; a row of NULLs: the performer cleared the loop.
        -- Overrides the manifest's loop of the part.
        CREATE TABLE savedLoop (
            partId INTEGER PRIMARY KEY REFERENCES part(id) ON DELETE CASCADE,
            a INTEGER,
            b INTEGER,
            CHECK ((a IS NULL) = (b IS NULL)),
            CHECK (a IS NULL OR (a >= 0 AND b > a))
        );

        CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        -- Where the performer left off: one row.
        CREATE TABLE resume (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            routineId INTEGER REFERENCES routine(id) ON DELETE SET NULL,
            partId INTEGER REFERENCES part(id) ON DELETE SET NULL,
            position INTEGER NOT NULL
        );
        """
}
