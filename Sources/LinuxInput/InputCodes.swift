/// Names of evdev codes, as `linux/input-event-codes.h` spells them, for configuration files.
/// Not every code: the keys a keyboard, presenter remote, foot pedal, media remote or
/// gamepad sends. A configuration may always give a number instead.
public enum InputCodes {
    /// Key and button codes (`EV_KEY`).
    public static let keys: [(name: String, code: UInt16)] = [
        ("KEY_ESC", 1),
        ("KEY_1", 2),
        ("KEY_2", 3),
        ("KEY_3", 4),
        ("KEY_4", 5),
        ("KEY_5", 6),
        ("KEY_6", 7),
        ("KEY_7", 8),
        ("KEY_8", 9),
        ("KEY_9", 10),
        ("KEY_0", 11),
        ("KEY_MINUS", 12),
        ("KEY_EQUAL", 13),
        ("KEY_BACKSPACE", 14),
        ("KEY_TAB", 15),
        ("KEY_Q", 16),
        ("KEY_W", 17),
        ("KEY_E", 18),
        ("KEY_R", 19),
        ("KEY_T", 20),
        ("KEY_Y", 21),
        ("KEY_U", 22),
        ("KEY_I", 23),
        ("KEY_O", 24),
        ("KEY_P", 25),
        ("KEY_LEFTBRACE", 26),
        ("KEY_RIGHTBRACE", 27),
        ("KEY_ENTER", 28),
        ("KEY_LEFTCTRL", 29),
        ("KEY_A", 30),
        ("KEY_S", 31),
        ("KEY_D", 32),
        ("KEY_F", 33),
        ("KEY_G", 34),
        ("KEY_H", 35),
        ("KEY_J", 36),
        ("KEY_K", 37),
        ("KEY_L", 38),
        ("KEY_SEMICOLON", 39),
        ("KEY_APOSTROPHE", 40),
        ("KEY_GRAVE", 41),
        ("KEY_LEFTSHIFT", 42),
        ("KEY_BACKSLASH", 43),
        ("KEY_Z", 44),
        ("KEY_X", 45),
        ("KEY_C", 46),
        ("KEY_V", 47),
        ("KEY_B", 48),
        ("KEY_N", 49),
        ("KEY_M", 50),
        ("KEY_COMMA", 51),
        ("KEY_DOT", 52),
        ("KEY_SLASH", 53),
        ("KEY_RIGHTSHIFT", 54),
        ("KEY_KPASTERISK", 55),
        ("KEY_LEFTALT", 56),
        ("KEY_SPACE", 57),
        ("KEY_CAPSLOCK", 58),
        ("KEY_F1", 59),
        ("KEY_F2", 60),
        ("KEY_F3", 61),
        ("KEY_F4", 62),
        ("KEY_F5", 63),
        ("KEY_F6", 64),
        ("KEY_F7", 65),
        ("KEY_F8", 66),
        ("KEY_F9", 67),
        ("KEY_F10", 68),
        ("KEY_NUMLOCK", 69),
        ("KEY_SCROLLLOCK", 70),
        ("KEY_KP7", 71),
        ("KEY_KP8", 72),
        ("KEY_KP9", 73),
        ("KEY_KPMINUS", 74),
        ("KEY_KP4", 75),
        ("KEY_KP5", 76),
        ("KEY_KP6", 77),
        ("KEY_KPPLUS", 78),
        ("KEY_KP1", 79),
        ("KEY_KP2", 80),
        ("KEY_KP3", 81),
        ("KEY_KP0", 82),
        ("KEY_KPDOT", 83),
        ("KEY_F11", 87),
        ("KEY_F12", 88),
        ("KEY_KPENTER", 96),
        ("KEY_RIGHTCTRL", 97),
        ("KEY_KPSLASH", 98),
        ("KEY_SYSRQ", 99),
        ("KEY_RIGHTALT", 100),
        ("KEY_HOME", 102),
        ("KEY_UP", 103),
        ("KEY_PAGEUP", 104),
        ("KEY_LEFT", 105),
        ("KEY_RIGHT", 106),
        ("KEY_END", 107),
        ("KEY_DOWN", 108),
        ("KEY_PAGEDOWN", 109),
        ("KEY_INSERT", 110),
        ("KEY_DELETE", 111),
        ("KEY_MUTE", 113),
        ("KEY_VOLUMEDOWN", 114),
        ("KEY_VOLUMEUP", 115),
        ("KEY_POWER", 116),
        ("KEY_PAUSE", 119),
        ("KEY_LEFTMETA", 125),
        ("KEY_RIGHTMETA", 126),
        ("KEY_COMPOSE", 127),
        ("KEY_STOP", 128),
        ("KEY_MENU", 139),
        ("KEY_BACK", 158),
        ("KEY_FORWARD", 159),
        ("KEY_NEXTSONG", 163),
        ("KEY_PLAYPAUSE", 164),
        ("KEY_PREVIOUSSONG", 165),
        ("KEY_STOPCD", 166),
        ("KEY_RECORD", 167),
        ("KEY_REWIND", 168),
        ("KEY_PLAYCD", 200),
        ("KEY_PAUSECD", 201),
        ("KEY_PLAY", 207),
        ("KEY_FASTFORWARD", 208),
        ("KEY_SELECT", 353),
        ("KEY_OK", 352),
        ("KEY_EXIT", 174),
        ("KEY_PREVIOUS", 412),
        ("KEY_NEXT", 407),
        ("BTN_0", 256),
        ("BTN_1", 257),
        ("BTN_2", 258),
        ("BTN_3", 259),
        ("BTN_4", 260),
        ("BTN_5", 261),
        ("BTN_6", 262),
        ("BTN_7", 263),
        ("BTN_8", 264),
        ("BTN_9", 265),
        ("BTN_LEFT", 272),
        ("BTN_RIGHT", 273),
        ("BTN_MIDDLE", 274),
        ("BTN_SIDE", 275),
        ("BTN_EXTRA", 276),
        ("BTN_FORWARD", 277),
        ("BTN_BACK", 278),
        ("BTN_TASK", 279),
        ("BTN_TRIGGER", 288),
        ("BTN_THUMB", 289),
        ("BTN_THUMB2", 290),
        ("BTN_TOP", 291),
        ("BTN_TOP2", 292),
        ("BTN_PINKIE", 293),
        ("BTN_BASE", 294),
        ("BTN_SOUTH", 304),
        ("BTN_EAST", 305),
        ("BTN_NORTH", 307),
        ("BTN_WEST", 308),
        ("BTN_TL", 310),
        ("BTN_TR", 311),
        ("BTN_SELECT", 314),
        ("BTN_START", 315),
        ("BTN_MODE", 316),
        ("BTN_DPAD_UP", 544),
        ("BTN_DPAD_DOWN", 545),
        ("BTN_DPAD_LEFT", 546),
        ("BTN_DPAD_RIGHT", 547),
    ]

    /// Relative axis codes (`EV_REL`): the rotary-encoder driver reports `REL_X` by
    /// default (`linux,axis`), knobs often `REL_DIAL`, wheels `REL_WHEEL`.
    public static let relativeAxes: [(name: String, code: UInt16)] = [
        ("REL_X", 0),
        ("REL_Y", 1),
        ("REL_Z", 2),
        ("REL_RX", 3),
        ("REL_RY", 4),
        ("REL_RZ", 5),
        ("REL_HWHEEL", 6),
        ("REL_DIAL", 7),
        ("REL_WHEEL", 8),
        ("REL_MISC", 9),
    ]

    private static let keyCodes = Dictionary(keys.map { ($0.name, $0.code) }, uniquingKeysWith: { first, _ in first })
    private static let keyNames = Dictionary(keys.map { ($0.code, $0.name) }, uniquingKeysWith: { first, _ in first })
    private static let axisCodes = Dictionary(
        relativeAxes.map { ($0.name, $0.code) }, uniquingKeysWith: { first, _ in first })
    private static let axisNames = Dictionary(
        relativeAxes.map { ($0.code, $0.name) }, uniquingKeysWith: { first, _ in first })

    /// The code of a key: `KEY_SPACE`, `space` (the prefix and case are optional), `BTN_LEFT`,
    /// or a number (`57`, `0x39`).
    public static func keyCode(named name: String) -> UInt16? {
        code(named: name, prefixes: ["KEY_", "BTN_"], table: keyCodes)
    }

    /// The code of a relative axis: `REL_DIAL`, `dial`, or a number.
    public static func axisCode(named name: String) -> UInt16? {
        code(named: name, prefixes: ["REL_"], table: axisCodes)
    }

    /// The header's name of a key code, when it is in the table (for logs and `devices`).
    public static func keyName(_ code: UInt16) -> String? { keyNames[code] }

    /// The header's name of a relative axis code, when it is in the table.
    public static func axisName(_ code: UInt16) -> String? { axisNames[code] }

    private static func code(named name: String, prefixes: [String], table: [String: UInt16]) -> UInt16? {
        if let number = UInt16(name) { return number }
        if name.lowercased().hasPrefix("0x"), let number = UInt16(name.dropFirst(2), radix: 16) { return number }
        let upper = name.uppercased()
        if let code = table[upper] { return code }
        for prefix in prefixes {
            if let code = table[prefix + upper] { return code }
        }
        return nil
    }
}
